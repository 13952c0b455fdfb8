/**
 * @module
 * Warmup code as an agent or a job is given it: TypeScript text split into blocks by `// ----------` lines,
 * or the blocks themselves. The step runs them (`jobs/step/warmup.ts`).
 */

/** One warmup block. */
export interface WarmupBlock {
  code: string;
  /** Runs, but is never shown to the model; may call hidden tools. @default false */
  hidden?: boolean;
}

/** Warmup as applications give it: TypeScript text (blocks split by `// ----------` lines) or blocks. */
export type WarmupSource = string | readonly WarmupBlock[];

/** A line of `//` followed by at least 10 dashes separates blocks. */
const SEPARATOR = /^\s*\/\/\s*-{10,}\s*$/;
/** `// statek: hidden` or `// statek: hidden = true|false` marks a block. */
const DIRECTIVE = /^\s*\/\/\s*statek\s*:(.*)$/i;

/**
 * The blocks of a warmup source.
 *
 * @throws {TypeError} For a directive line (`// statek: …`) that is not `hidden`, `hidden = true` or `hidden = false`.
 *
 * @example
 * ```ts
 * parseWarmup("// statek: hidden\nconst secret = loadKey()\n// ----------\nconst events = calendar.eventsFor(today)");
 * // [{ code: "const secret = loadKey()", hidden: true }, { code: "const events = calendar.eventsFor(today)", hidden: false }]
 * ```
 */
export function parseWarmup(source: WarmupSource | undefined, label = "warmup"): WarmupBlock[] {
  if (source === undefined) return [];
  if (typeof source !== "string") {
    if (!Array.isArray(source)) throw new TypeError(`${label}: expected a string or an array of { code, hidden? } blocks`);
    return source.map((block, index) => {
      if (typeof block?.code !== "string") throw new TypeError(`${label}[${index}]: a block needs code (a string)`);
      return { code: block.code, hidden: block.hidden === true };
    }).filter((block) => block.code.trim() !== "");
  }
  const blocks: WarmupBlock[] = [];
  let lines: string[] = [];
  let hidden = false;
  const close = () => {
    const code = lines.join("\n").trim();
    if (code) blocks.push({ code, hidden });
    lines = [];
    hidden = false;
  };
  source.split("\n").forEach((line, index) => {
    if (SEPARATOR.test(line)) return close();
    const directive = DIRECTIVE.exec(line);
    if (!directive) return void lines.push(line);
    const setting = directive[1]!.trim().toLowerCase().replace(/\s+/g, "");
    if (setting === "hidden" || setting === "hidden=true") hidden = true;
    else if (setting === "hidden=false") hidden = false;
    else throw new TypeError(`${label}: line ${index + 1}: invalid warmup directive ${JSON.stringify(line.trim())} (expected "// statek: hidden")`);
  });
  close();
  return blocks;
}
