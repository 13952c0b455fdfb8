/**
 * @module
 * Warmup code: blocks of TypeScript that run in the job's workspace before the model is first
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
import type { WarmupBlock } from "../../agents/warmup-blocks.ts";

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
    changes.warmupFailed = true;
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
