/**
 * @module
 * Warmup code (DESIGN.md §8.6): blocks of TypeScript that run in the job's workspace before the model is first
 * asked — to load data, set variables, call tools. One block runs per step (status `WARMING_UP`); the step
 * that runs the last block also asks the model. A block marked hidden runs like the others, may call hidden
 * tools, and is never shown to the model. A failing block fails the job.
 */
import type { JobRow } from "../../store/store.ts";
import type { Agent } from "../../agents/agent.ts";
import { openWorkspace } from "./execute-response.ts";
import type { JobSession } from "./job-sessions.ts";
import { readJobState, writeJobState } from "./job-state.ts";
import type { StepChanges } from "./step-changes.ts";
import { readJournal, runDurableCell, settleCell, type DurableCellContext } from "./durable-cell.ts";
import type { StepTransaction } from "./step-transaction.ts";
import type { StepEnvironment } from "./step-environment.ts";

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

/** The reason a job fails with when warmup block `index` (0-based) of `count` raised `error`. */
export function warmupFailure(index: number, count: number, error: string): string {
  return `warmup block ${index + 1} of ${count} failed: ${error}`;
}

/** The 0-based index of the warmup block a failure reason of {@link warmupFailure} names, else `undefined`. */
export function failedWarmupBlock(reason: string | undefined): number | undefined {
  const match = /^warmup block (\d+) of \d+ failed: /.exec(reason ?? "");
  return match ? Number(match[1]) - 1 : undefined;
}

/**
 * Runs the job's next warmup block. Returns `true` when the step should go on to ask the model (the last
 * block ran and the job is still running), `false` when the step ends here.
 */
export async function runWarmupBlock(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, blocks: readonly WarmupBlock[], changes: StepChanges, tx: StepTransaction,
): Promise<boolean> {
  const state = readJobState(row, changes);
  const index = state.warmupBlock;
  if (index >= blocks.length) return true;
  if (changes.status !== "WARMING_UP") changes.setStatus("WARMING_UP");
  const block = blocks[index]!;
  const context: DurableCellContext = { env, row, tx, changes, history: session.history };
  const journal = await readJournal(context);
  // A block that waited (the job suspended in WARMING_UP) is replayed: its record was committed already.
  if (!journal.size) changes.append("warmup", { block: index, code: block.code, hidden: block.hidden === true });
  // A hidden block may call hidden tools; the workspace refuses them to every other cell.
  session.workspace ??= await openWorkspace(env, agent, row);
  const { report, futures } = await runDurableCell(context, session.workspace, block.code, "warmup", journal, { allowHiddenTools: block.hidden === true });
  changes.absorb(report);
  await settleCell(context, report, futures, "warmup", journal);
  if (report.suspended) return false;
  writeJobState(row, changes, { warmupBlock: index + 1 });
  if (report.error !== undefined) {
    changes.fail(warmupFailure(index, blocks.length, report.error));
    return false;
  }
  if (report.exitStatus !== undefined) {
    changes.finish(report.exitStatus);
    return false;
  }
  if (index + 1 < blocks.length) return false;
  changes.setStatus("STARTED");
  return true;
}
