/**
 * @module
 * Prompt definition files, read by `Agent.fromPromptFile`:
 *
 * ```
 * # MODEL: openai/gpt-5-mini
 * # CHAT_STYLE: MARKDOWN
 * # LLM_TOOLS_SCOPE: ALL
 * # POST_PROCESSORS: FinalCheck(minActions=2)
 * # MAX_TURNS: 20
 *
 * # System Prompt
 * You help users manage their calendar by writing TypeScript. …
 * ```
 *
 * Metadata lines (`# KEY: value`, keys upper-cased) and blank lines come first; `# System Prompt` starts the
 * prompt, which is everything after it. `ROLE` names the agent (default: the file name without extension);
 * `MAX_TURNS`, `MAX_EXCEPTIONS`, `MAX_CONSECUTIVE_EXCEPTIONS`, `MAX_TOKENS` and `MAX_COST` set harness limits.
 * Every problem is an error naming the file and line.
 */
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { InvalidPromptFileError } from "../errors/invalid-prompt-file-error.ts";
import { checkTemperature } from "../models/model-call-settings.ts";
import { parseDifficulty } from "./difficulty.ts";
import { checkModelSetting } from "./job-settings.ts";
import { CHAT_STYLES, isChatStyle } from "./chat-styles/chat-style.ts";
import { HARNESS_METADATA_KEYS, type HarnessLimits } from "./harness.ts";
import { parsePostProcessors } from "./parse-post-processors.ts";
import { errorMessage } from "../errors/error-text.ts";

/** What a prompt file defines. */
export interface PromptDefinition {
  role: string;
  systemPrompt: string;
  /** The metadata lines, keys upper-cased, limits left out. */
  metadata: Record<string, string>;
  limits: HarnessLimits;
}

const HEADER = /^#\s*system\s+prompt\s*$/i;
const METADATA = /^#\s*([A-Za-z_][\w]*)\s*:\s*(.*?)\s*$/;
const LIMIT_KEYS: Readonly<Record<string, keyof HarnessLimits>> = Object.fromEntries(
  Object.entries(HARNESS_METADATA_KEYS).map(([name, key]) => [key, name as keyof HarnessLimits]),
);

/**
 * Reads and checks a prompt definition file.
 *
 * @throws {InvalidPromptFileError} Naming the file (and line) of the first problem.
 */
export function readPromptFile(file: string): PromptDefinition {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidPromptFileError({ file, reason: `cannot read the prompt file: ${errorMessage(error)}`, cause: error });
  }
  return parsePromptFile(text, file);
}

/** Parses the text of a prompt definition file; `file` names it in errors. */
export function parsePromptFile(text: string, file: string): PromptDefinition {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const metadata: Record<string, string> = {};
  const limits: HarnessLimits = {};
  const seen = new Map<string, number>();
  const fail = (line: number, reason: string): never => {
    throw new InvalidPromptFileError({ file, line, reason });
  };
  const header = lines.findIndex((line) => HEADER.test(line.trim()));
  const end = header < 0 ? lines.length : header;
  for (let index = 0; index < end; index++) {
    const line = lines[index]!.trim();
    const number = index + 1;
    if (line === "") continue;
    const match = METADATA.exec(line);
    if (!match) fail(number, `expected a metadata line "# KEY: value" or "# System Prompt", got ${JSON.stringify(truncate(line))}`);
    const key = match![1]!.toUpperCase();
    const value = match![2]!;
    const first = seen.get(key);
    if (first !== undefined) fail(number, `${key} is set twice (first on line ${first})`);
    seen.set(key, number);
    if (value === "") fail(number, `${key} has no value`);
    checkMetadata(key, value, (reason) => fail(number, reason));
    const limit = LIMIT_KEYS[key];
    if (limit) limits[limit] = Number(value);
    else metadata[key] = key === "CHAT_STYLE" ? value.toUpperCase() : value;
  }
  // MODEL is checked once PROVIDER (which may come after it) is known.
  if (metadata.MODEL !== undefined) {
    try {
      checkModelSetting({ MODEL: metadata.MODEL, ...(metadata.PROVIDER ? { PROVIDER: metadata.PROVIDER } : {}) }, "x");
    } catch (error) {
      fail(seen.get("MODEL")!, (error as Error).message.replace(/^x: /, ""));
    }
  }
  if (header < 0) throw new InvalidPromptFileError({ file, reason: 'missing the "# System Prompt" line that starts the prompt text' });
  const systemPrompt = lines.slice(header + 1).join("\n").trim();
  if (systemPrompt === "") fail(header + 1, 'the prompt after "# System Prompt" is empty');
  const role = metadata.ROLE ?? basename(file, extname(file));
  delete metadata.ROLE;
  if (!/^[A-Za-z0-9_.:-]+$/.test(role)) {
    const line = seen.get("ROLE");
    const reason = `the role ${JSON.stringify(role)} is not a name of letters, digits, _ . : -` + (line ? "" : " (rename the file or set # ROLE: …)");
    if (line) fail(line, reason);
    throw new InvalidPromptFileError({ file, reason });
  }
  return { role, systemPrompt, metadata, limits };
}

function checkMetadata(key: string, value: string, fail: (reason: string) => never): void {
  try {
    if (key === "CHAT_STYLE" && !isChatStyle(value.toUpperCase())) {
      fail(`unknown CHAT_STYLE '${value}' (expected ${CHAT_STYLES.join(", ")})`);
    }
    if (key === "TEMPERATURE") checkTemperature(value);
    if (key === "DEFAULT_DIFFICULTY" && !parseDifficulty(value)) fail(`DEFAULT_DIFFICULTY must be L, M or H (or low, medium, high), got '${value}'`);
    if (key === "POST_PROCESSORS") parsePostProcessors(value);
  } catch (error) {
    if (error instanceof InvalidPromptFileError) throw error;
    fail(errorMessage(error));
  }
  if (LIMIT_KEYS[key] && !(Number(value) >= 0)) fail(`${key} must be a number ≥ 0, got '${value}'`);
}

function truncate(line: string): string {
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
