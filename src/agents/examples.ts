/**
 * @module
 * Worked examples an agent's model can look at (`listExamples`, `showExample`): a folder of Markdown files
 * (`new Agent({ examples: "./examples/order_handler" })`) or objects given in code. An example file:
 *
 * ````md
 * # seq: 2
 * # name: Move a meeting to the next free slot
 * # difficulty: M
 * const meeting = calendar.find("planning")
 * # ----------
 * First find a slot after the meeting.
 * ```ts
 * const slot = await findEmptySlot(calendar, meeting.endsAt)
 * print(slot)
 * ```
 * > 2026-12-04T10:00:00.000Z
 * ````
 *
 * `# key: value` lines outside fences are metadata (`seq` and other integers become numbers; `difficulty` is a
 * level); a `# ----------` line (ten dashes or more) ends the warmup — the code that sets the scene — and starts
 * the example proper: ```` ```ts ```` cells, `> ` console lines and prose, in order. Examples are sorted by
 * `seq` (those without one last, by file name) and numbered from 0: the ids `showExample` takes.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { InvalidPromptFileError } from "../errors/invalid-prompt-file-error.ts";
import { isDifficulty, parseDifficulty, type Difficulty } from "./difficulty.ts";

/** One part of an example's body, in order. */
export interface ExampleStep {
  /** `code`: a cell; `console`: its output; `text`: prose (in dialog styles, what the user reads). */
  kind: "code" | "console" | "text";
  text: string;
}

/** An example as given in code. */
export interface ExampleDefinition {
  name: string;
  /** Sort key; examples without one come last. */
  seq?: number;
  /** The level the example is for: showing it raises the job's difficulty to it. */
  difficulty?: Difficulty;
  /** Code that sets the scene (shown before the example proper). */
  warmup?: string;
  steps: readonly ExampleStep[];
  /** Any other metadata. */
  metadata?: Readonly<Record<string, string | number>>;
}

/** An example as the agent keeps it (sorted, with its id). */
export interface Example extends ExampleDefinition {
  /** Its index in the agent's sorted list. */
  id: number;
  /** The file it came from, when it came from one. */
  file?: string;
}

/** Where an agent's examples come from: a folder of Markdown files, or definitions. */
export type ExamplesSource = string | readonly ExampleDefinition[];

const METADATA = /^#\s*([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$/;
const SEPARATOR = /^\s*(?:#|\/\/)\s*-{10,}\s*$/;
const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;

/**
 * Parses an example file's text; `file` names it in errors.
 *
 * @throws {InvalidPromptFileError} Naming the file and line: an unknown difficulty, an unclosed fence, no name.
 */
export function parseExample(text: string, file: string): ExampleDefinition {
  const fail = (line: number, reason: string): never => {
    throw new InvalidPromptFileError({ file, line, reason });
  };
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const metadata: Record<string, string | number> = {};
  const warmup: string[] = [];
  const steps: ExampleStep[] = [];
  const hasSeparator = lines.some((line) => SEPARATOR.test(line));
  let inWarmup = hasSeparator;
  let fence: { marker: string; language: string; lines: string[]; start: number } | undefined;
  let prose: string[] = [];
  let output: string[] = [];
  const flush = () => {
    if (prose.some((line) => line.trim())) steps.push({ kind: "text", text: prose.join("\n").trim() });
    if (output.length) steps.push({ kind: "console", text: output.join("\n") });
    prose = [];
    output = [];
  };
  lines.forEach((line, index) => {
    const number = index + 1;
    const fenceLine = FENCE.exec(line);
    if (fence) {
      if (fenceLine && fenceLine[1] === fence.marker && fenceLine[2] === "") {
        const code = fence.lines.join("\n").trim();
        if (inWarmup) warmup.push(code);
        else if (code) steps.push({ kind: /^(console|output|text)$/.test(fence.language) ? "console" : "code", text: code });
        fence = undefined;
      } else {
        fence.lines.push(line);
      }
      return;
    }
    if (fenceLine) {
      if (!inWarmup) flush();
      fence = { marker: fenceLine[1]!, language: fenceLine[2]!.toLowerCase(), lines: [], start: number };
      return;
    }
    if (SEPARATOR.test(line)) {
      inWarmup = false;
      return;
    }
    const meta = METADATA.exec(line);
    if (meta) {
      const key = meta[1]!.toLowerCase();
      const value = meta[2]!;
      if (key === "difficulty" || key === "task_difficulty") {
        const level = parseDifficulty(value);
        if (!level) fail(number, `difficulty must be L, M or H (or low, medium, high), got '${value}'`);
        metadata.difficulty = level!;
      } else {
        metadata[key] = /^-?\d+$/.test(value) ? Number(value) : value;
      }
      return;
    }
    if (inWarmup) {
      warmup.push(line);
      return;
    }
    if (/^>( |$)/.test(line)) {
      if (prose.some((entry) => entry.trim())) flush();
      output.push(line.replace(/^> ?/, ""));
      return;
    }
    if (output.length) flush();
    prose.push(line);
  });
  if (fence) fail(fence.start, "the code fence opened here is never closed");
  flush();
  const name = typeof metadata.name === "string" && metadata.name.trim() ? metadata.name.trim() : undefined;
  const { name: _name, seq, difficulty, ...rest } = metadata;
  const definition: ExampleDefinition = {
    name: name ?? fileTitle(file),
    steps,
    ...(typeof seq === "number" ? { seq } : {}),
    ...(isDifficulty(difficulty) ? { difficulty } : {}),
    ...(warmup.join("\n").trim() ? { warmup: warmup.join("\n").trim() } : {}),
    ...(Object.keys(rest).length ? { metadata: rest } : {}),
  };
  return definition;
}

/** A readable name from a file name: `02-move-meeting.md` → `move meeting`. */
function fileTitle(file: string): string {
  const base = file.split(/[\\/]/).pop()!.replace(/\.[^.]+$/, "");
  return base.replace(/^\d+[-_ ]*/, "").replace(/[-_]+/g, " ").trim() || base;
}

/** Every file under `folder` with one of `extensions`, in sorted order (paths relative to the folder sort). */
export function filesUnder(folder: string, extensions: readonly string[]): string[] {
  let stat;
  try {
    stat = statSync(folder);
  } catch (error) {
    throw new InvalidPromptFileError({ file: folder, reason: `cannot read the folder: ${(error as Error).message}`, cause: error });
  }
  if (!stat.isDirectory()) throw new InvalidPromptFileError({ file: folder, reason: "is not a folder" });
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((extension) => entry.name.toLowerCase().endsWith(extension)))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort((a, b) => relative(folder, a).localeCompare(relative(folder, b)));
}

/**
 * An agent's examples: the Markdown files under a folder, or definitions given in code (checked), sorted by
 * `seq` (those without last, in the order found) and numbered.
 *
 * @throws {InvalidPromptFileError} For a file that cannot be read or parsed (naming it and the line).
 * @throws {TypeError} For a definition that is not one (naming it).
 */
export function loadExamples(source: ExamplesSource | undefined, label: string): Example[] {
  if (source === undefined) return [];
  const found: Array<ExampleDefinition & { file?: string }> = [];
  if (typeof source === "string") {
    for (const file of filesUnder(source, [".md"])) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new InvalidPromptFileError({ file, reason: `cannot read the example: ${(error as Error).message}`, cause: error });
      }
      found.push({ ...parseExample(text, file), file });
    }
  } else if (Array.isArray(source)) {
    source.forEach((definition, index) => found.push(checkExample(definition, `${label}: examples[${index}]`)));
  } else {
    throw new TypeError(`${label}: examples must be a folder path or an array of examples`);
  }
  const order = (example: ExampleDefinition) => (example.seq === undefined ? Infinity : example.seq);
  return found
    .map((example, position) => ({ example, position }))
    .sort((a, b) => order(a.example) - order(b.example) || a.position - b.position)
    .map(({ example }, id) => Object.freeze({ ...example, id }));
}

function checkExample(definition: ExampleDefinition, label: string): ExampleDefinition {
  if (typeof definition !== "object" || definition === null) throw new TypeError(`${label} must be an object with name and steps`);
  if (typeof definition.name !== "string" || !definition.name.trim()) throw new TypeError(`${label}: name must be a non-empty string`);
  if (!Array.isArray(definition.steps) || definition.steps.some((step) => !["code", "console", "text"].includes(step?.kind) || typeof step.text !== "string")) {
    throw new TypeError(`${label}: steps must be a list of { kind: "code" | "console" | "text", text }`);
  }
  if (definition.seq !== undefined && !Number.isFinite(definition.seq)) throw new TypeError(`${label}: seq must be a number`);
  if (definition.difficulty !== undefined && !isDifficulty(definition.difficulty)) throw new TypeError(`${label}: difficulty must be "L", "M" or "H"`);
  if (definition.warmup !== undefined && typeof definition.warmup !== "string") throw new TypeError(`${label}: warmup must be code (a string)`);
  return { ...definition, steps: definition.steps.map((step) => ({ kind: step.kind, text: step.text })) };
}
