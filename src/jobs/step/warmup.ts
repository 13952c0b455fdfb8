/**
 * @module
 * Warmup code: blocks of TypeScript that run in the job's workspace before the model is first
 * asked — to load data, set variables, call tools. One block runs per step (status `WARMING_UP`); the step
 * that runs the last block also asks the model. A block marked hidden runs like the others, may call hidden
 * tools, and is never shown to the model. A failing block fails the job.
 */
import type { Agent } from "../../agents/agent.ts";
import { openWorkspace } from "./execute-response.ts";
import type { JobSession } from "./job-sessions.ts";
import { readJobState, writeJobState } from "./job-state.ts";
import type { StepChanges } from "./step-changes.ts";
import { readJournal, runDurableCell, settleCell, type DurableCellContext } from "./durable-cell.ts";
import type { StepTransaction } from "./step-transaction.ts";
import type { StepEnvironment } from "./step-environment.ts";
import type { WarmupBlock } from "../../agents/warmup-blocks.ts";
import { runFormalCall } from "./durable-formal.ts";
import type { RecordedToolCall } from "../history/history.ts";
import type { JobRow, JsonValue } from "../../store/store.ts";

/**
 * A warmup block's formal call as the model sees it: the positional arguments named by the tool's parameters
 * (for a tool the agent does not have, by position; the call then reads `NameError`).
 */
function recordedCall(agent: Agent, call: { id?: string; name: string; args: JsonValue[] }, fallbackId: string): RecordedToolCall {
  const tool = agent.registry.get(call.name);
  const names = tool?.parameterNames ?? [];
  const args: Record<string, JsonValue> = {};
  // One object whose keys are all parameter names is the named form: `findSlot({ calendar, after })`.
  const [only] = call.args;
  if (call.args.length === 1 && typeof only === "object" && only !== null && !Array.isArray(only) && Object.keys(only).every((key) => names.includes(key))) {
    return { id: call.id ?? `STATEK-${fallbackId}`, name: call.name, args: { ...only } };
  }
  call.args.forEach((value, position) => {
    args[names[position] ?? String(position)] = value;
  });
  return { id: call.id ?? `STATEK-${fallbackId}`, name: call.name, args };
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
  const context: DurableCellContext = { env, row, tx, changes, history: session.history, memory: session.memory };
  const journal = await readJournal(context);
  const allowHiddenTools = block.hidden === true;
  // The block's formal calls (`// statek: as tool`) as the model sees them: named arguments.
  const calls = (block.toolCalls ?? []).map((call, position) => recordedCall(agent, call, `${index}-${position}`));
  // A block that waited (the job suspended in WARMING_UP) is replayed: its record was committed already.
  if (!journal.size) changes.append("warmup", { block: index, code: block.code, hidden: allowHiddenTools, ...(calls.length ? { toolCalls: calls } : {}) });
  // A hidden block may call hidden tools; the workspace refuses them to every other cell.
  session.workspace ??= await openWorkspace(env, agent, row, { memory: session.memory });
  let exitStatus: string | undefined;
  for (const call of calls) {
    const outcome = await runFormalCall(context, session.workspace, call, journal, { allowHiddenTools });
    if (outcome.exitStatus !== undefined) {
      exitStatus = outcome.exitStatus;
      break;
    }
  }
  let error: string | undefined;
  if (exitStatus === undefined && block.code.trim() !== "") {
    const { report, futures } = await runDurableCell(context, session.workspace, block.code, "warmup", journal, { allowHiddenTools });
    changes.absorb(report);
    await settleCell(context, report, futures, "warmup", journal);
    if (report.suspended) return false;
    error = report.error;
    exitStatus = report.exitStatus;
  } else {
    // No cell ran: the block's cell number ends here (its formal calls' journal with it).
    changes.clearJournal = true;
    changes.job.cell = row.cell + 1;
  }
  writeJobState(row, changes, { warmupBlock: index + 1 });
  if (error !== undefined) {
    changes.warmupFailed = true;
    changes.fail(warmupFailure(index, blocks.length, error));
    return false;
  }
  if (exitStatus !== undefined) {
    changes.finish(exitStatus);
    return false;
  }
  if (index + 1 < blocks.length) return false;
  changes.setStatus("STARTED");
  return true;
}
