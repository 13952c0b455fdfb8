/**
 * @module
 * Warmup code as an agent or a job is given it: TypeScript text split into blocks by `// ----------` lines,
 * or the blocks themselves. The step runs them (`jobs/step/warmup.ts`).
 *
 * Directives are `// statek:` comments:
 * - on a line of their own, `// statek: hidden` (or `hidden = true|false`) marks the block hidden, and
 *   `// statek: key = literal` (a string in quotes, a number, `true`, `false`, `null`) sets block metadata;
 * - after a call, `findEmptySlot(calendar, "2026-12-04") // statek: as tool` makes that line a tool call the
 *   model sees as its own formal call with its result (the arguments are literals; a bare name is kept as a
 *   string, which the call binds to the workspace variable of that name). Such calls run before the block's
 *   code, in order.
 */
import { parseExpressionAt, type Node } from "acorn";
import type { JsonValue } from "../store/store.ts";

/** A tool call a warmup block makes as the model would, formally (`// statek: as tool`). */
export interface WarmupToolCall {
  /** `STATEK-001`, … numbered across the job's blocks when it is submitted. */
  id?: string;
  name: string;
  /** The arguments, positionally. */
  args: JsonValue[];
}

/** One warmup block. */
export interface WarmupBlock {
  code: string;
  /** Runs, but is never shown to the model; may call hidden tools. @default false */
  hidden?: boolean;
  /** Formal tool calls made before the code (`// statek: as tool`). */
  toolCalls?: WarmupToolCall[];
  /** Block metadata set by `// statek: key = literal`. */
  metadata?: Record<string, JsonValue>;
}

/** Warmup as applications give it: TypeScript text (blocks split by `// ----------` lines) or blocks. */
export type WarmupSource = string | readonly WarmupBlock[];

/** A line of `//` followed by at least 10 dashes separates blocks. */
const SEPARATOR = /^\s*\/\/\s*-{10,}\s*$/;
/** `// statek: …` on a line of its own. */
const DIRECTIVE = /^\s*\/\/\s*statek\s*:(.*)$/i;
/** `<code> // statek: as tool` at the end of a line. */
const AS_TOOL = /^(.*?)\/\/\s*statek\s*:\s*as\s+tool\s*$/i;
const SETTING = /^([A-Za-z_]\w*)\s*=\s*(.*)$/;

/**
 * The blocks of a warmup source.
 *
 * @throws {TypeError} Naming the line of a directive that is not one of the above, a metadata value that is not
 * a literal, or an `as tool` line that is not a single call with literal arguments.
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
      const given: unknown = block.toolCalls;
      if (given !== undefined && (!Array.isArray(given) || !given.every((call) => typeof call?.name === "string" && Array.isArray(call.args)))) {
        throw new TypeError(`${label}[${index}]: toolCalls must be a list of { name, args: [...] }`);
      }
      const calls = (given as WarmupToolCall[] | undefined)?.map((call) => ({ name: call.name, args: [...call.args] }));
      return {
        code: block.code,
        hidden: block.hidden === true,
        ...(calls?.length ? { toolCalls: calls } : {}),
        ...(block.metadata ? { metadata: { ...block.metadata } } : {}),
      };
    }).filter((block) => block.code.trim() !== "" || block.toolCalls?.length);
  }
  return parseWarmupText(source, (line, reason) => {
    throw new TypeError(`${label}: line ${line}: ${reason}`);
  }).map(({ block }) => block);
}

/**
 * The blocks of warmup text, each with the 1-based line its code starts on; `fail(line, reason)` reports a bad
 * directive (it must throw).
 */
export function parseWarmupText(source: string, fail: (line: number, reason: string) => never): Array<{ block: WarmupBlock; line: number }> {
  const blocks: Array<{ block: WarmupBlock; line: number }> = [];
  let lines: string[] = [];
  let hidden = false;
  let calls: WarmupToolCall[] = [];
  let metadata: Record<string, JsonValue> = {};
  let start = 0;
  const close = () => {
    const code = lines.join("\n").trim();
    if (code || calls.length) {
      // The line of the block's first line of code (blank lines before it are trimmed away).
      const leading = lines.findIndex((line) => line.trim() !== "");
      const block = { code, hidden, ...(calls.length ? { toolCalls: calls } : {}), ...(Object.keys(metadata).length ? { metadata } : {}) };
      blocks.push({ block, line: start + (leading < 0 ? 0 : leading) });
    }
    lines = [];
    hidden = false;
    calls = [];
    metadata = {};
  };
  source.split("\n").forEach((line, index) => {
    const number = index + 1;
    if (lines.length === 0) start = number;
    if (SEPARATOR.test(line)) return close();
    const asTool = AS_TOOL.exec(line);
    if (asTool) {
      // The code stays one line per line, so the lines after it keep their numbers.
      lines.push("");
      return void calls.push(parseToolLine(asTool[1]!, (reason) => fail(number, reason)));
    }
    const directive = DIRECTIVE.exec(line);
    if (!directive) return void lines.push(line);
    lines.push("");
    const setting = directive[1]!.trim();
    const compact = setting.toLowerCase().replace(/\s+/g, "");
    if (compact === "hidden" || compact === "hidden=true") return void (hidden = true);
    if (compact === "hidden=false") return void (hidden = false);
    const pair = SETTING.exec(setting);
    if (!pair) fail(number, `invalid warmup directive ${JSON.stringify(line.trim())} (expected "// statek: hidden", "// statek: key = value" or "… // statek: as tool")`);
    metadata[pair![1]!] = parseLiteral(pair![2]!, (reason) => fail(number, `invalid warmup metadata value for '${pair![1]}': ${reason}`));
  });
  close();
  return blocks;
}

/** A literal setting: a quoted string, a number, true, false or null. */
function parseLiteral(text: string, fail: (reason: string) => never): JsonValue {
  const source = text.trim();
  const problem = `${JSON.stringify(source)} (expected a string, number, true, false or null)`;
  let node: Node & Record<string, any>;
  try {
    node = parseExpressionAt(source, 0, { ecmaVersion: "latest" }) as Node & Record<string, any>;
  } catch {
    return fail(problem);
  }
  if (node.end !== source.length) return fail(problem);
  const value = literalOf(node, false);
  if (value === undefined || (typeof value === "object" && value !== null)) return fail(problem);
  return value;
}

/** `name(arg, …)` with literal arguments (bare names kept as strings), `await` allowed in front. */
function parseToolLine(code: string, report: (reason: string) => never): WarmupToolCall {
  const text = code.trim().replace(/;$/, "");
  const fail = (why: string): never => report(`an "as tool" line must be one call with literal arguments, such as findSlot(calendar, "2026-12-04") (${why})`);
  let node: Node & Record<string, any>;
  try {
    node = parseExpressionAt(text, 0, { ecmaVersion: "latest", allowAwaitOutsideFunction: true }) as Node & Record<string, any>;
  } catch (error) {
    return fail((error as Error).message);
  }
  if (node.end !== text.length) fail("there is more after the call");
  if (node.type === "AwaitExpression") node = node.argument;
  if (node.type !== "CallExpression" || node.callee.type !== "Identifier") return fail("it is not a call of a tool by its name");
  const args = (node.arguments as Array<Node & Record<string, any>>).map((argument) => {
    const value = literalOf(argument, true);
    return value === undefined ? fail(`argument ${text.slice(argument.start, argument.end)} is not a literal`) : value;
  });
  return { name: node.callee.name, args };
}

/** The JSON value a literal expression stands for, or `undefined` when it is not one. */
function literalOf(node: Node & Record<string, any>, bareNames: boolean): JsonValue | undefined {
  switch (node.type) {
    case "Literal":
      return node.regex || typeof node.value === "bigint" ? undefined : (node.value as JsonValue);
    case "Identifier":
      if (node.name === "undefined") return null;
      return bareNames ? node.name : undefined;
    case "TemplateLiteral":
      return node.expressions.length === 0 ? node.quasis[0].value.cooked : undefined;
    case "UnaryExpression": {
      if (node.operator !== "-" && node.operator !== "+") return undefined;
      const inner = literalOf(node.argument, false);
      return typeof inner === "number" ? (node.operator === "-" ? -inner : inner) : undefined;
    }
    case "ArrayExpression": {
      const items: JsonValue[] = [];
      for (const element of node.elements) {
        const value = element ? literalOf(element, false) : undefined;
        if (value === undefined) return undefined;
        items.push(value);
      }
      return items;
    }
    case "ObjectExpression": {
      const object: Record<string, JsonValue> = {};
      for (const property of node.properties) {
        if (property.type !== "Property" || property.computed || property.kind !== "init") return undefined;
        const key = property.key.type === "Identifier" ? property.key.name : property.key.value;
        const value = literalOf(property.value, false);
        if ((typeof key !== "string" && typeof key !== "number") || key === "__proto__") return undefined;
        if (value === undefined) return undefined;
        object[String(key)] = value;
      }
      return object;
    }
    default:
      return undefined;
  }
}

/** Numbers the formal calls of `blocks` `STATEK-001`, `STATEK-002`, … in order. */
export function numberWarmupCalls(blocks: readonly WarmupBlock[]): WarmupBlock[] {
  let count = 0;
  return blocks.map((block) => (block.toolCalls?.length
    ? { ...block, toolCalls: block.toolCalls.map((call) => ({ ...call, id: `STATEK-${String(++count).padStart(3, "0")}` })) }
    : { ...block }));
}
