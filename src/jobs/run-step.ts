/**
 * @module
 * One step of a job (DESIGN.md §3): execute the pending model response (its formal tool calls, then its
 * cell), then — unless the job finished — ask the model for the next response and commit it **before** it is
 * executed. Everything a step changes is committed in one transaction at its end, so a crash loses at most
 * the step in progress and never a committed model reply.
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import type { JobRow, JobStatus } from "../store/store.ts";
import { agentForJob, type Agent } from "./agent.ts";
import { askModel } from "./ask-model.ts";
import { chatStyleOf } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";
import { runErrorHandlers } from "./error-handlers.ts";
import { executeResponse } from "./execute-response.ts";
import { checkTurns, countExceptions, effectiveLimits } from "./harness.ts";
import type { HistoryRecord } from "./history.ts";
import { decodeHistory } from "./history-codec.ts";
import type { JobSession } from "./job-sessions.ts";
import { readJobState, writeJobState } from "./job-state.ts";
import { StepChanges } from "./step-changes.ts";
import { retried } from "./store-retries.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { runWarmupBlock, type WarmupBlock } from "./warmup.ts";

export { DEFAULT_MAX_TURNS, type StepEnvironment } from "./step-environment.ts";

/**
 * Runs one step of job `id` and commits it. Returns the job's status afterwards. Transient store failures are
 * retried (`store-retries.ts`); when they persist the step rejects and the job stays as it was.
 */
export async function runStep(env: StepEnvironment, id: string): Promise<JobStatus> {
  const row = await retried(env, () => env.store.getJob(id));
  if (!row) throw new NoSuchJobError({ jobId: id });
  let status: JobStatus;
  try {
    status = row.status;
  } catch (error) {
    return failCorrupt(env, row, error);
  }
  if (status === "DONE" || status === "FAILED") return status;
  const agent = env.agentFor(row.role);
  let session = env.sessions.take(id, row.version, agent);
  if (!session) {
    const rows = await retried(env, () => env.store.getHistory(id));
    let history: HistoryRecord[];
    try {
      history = decodeHistory(id, rows);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      return failCorrupt(env, row, error);
    }
    session = { version: row.version, agent, history, workspace: undefined } satisfies JobSession;
  }
  const changes = new StepChanges(row);
  let committed = false;
  try {
    try {
      await executeAndAsk(env, agent, row, session, changes);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      changes.fail(error.message, error);
    }
    // Every path to FAILED goes through changes.fail; its error handlers run before the failure commits.
    await runErrorHandlers(env, agent, changes);
    await retried(env, () => env.store.commit(changes.commit(row)));
    committed = true;
  } finally {
    const finished = changes.status === "DONE" || changes.status === "FAILED";
    if (committed && !finished && (session.workspace?.reusable ?? true)) {
      session.version = row.version + 1;
      session.history.push(...changes.records);
      env.sessions.keep(id, session);
    } else {
      session.workspace?.dispose();
    }
  }
  return changes.status;
}

/** A row whose status cannot be read fails like any other job: through `StepChanges.fail`, handlers first. */
async function failCorrupt(env: StepEnvironment, row: JobRow, error: unknown): Promise<JobStatus> {
  const changes = new StepChanges(row);
  changes.fail(error instanceof Error ? error.message : String(error), error);
  let agent: Agent | undefined;
  try {
    agent = env.agentFor(row.role);
  } catch {
    // The handlers still run, against the process's bindings only.
  }
  await runErrorHandlers(env, agent, changes);
  await retried(env, () => env.store.commit(changes.commit(row)));
  return "FAILED";
}


async function executeAndAsk(env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, changes: StepChanges): Promise<void> {
  // [model layer] the job's chat style and harness limits; the agent as this job runs it (its own settings).
  let dialog: boolean;
  try {
    dialog = chatStyleRules(chatStyleOf(row.metadata)).dialog;
    agent = agentForJob(agent, row.metadata);
  } catch (error) {
    return changes.fail(`job metadata: ${(error as Error).message}`);
  }
  const limits = effectiveLimits(agent.limits, env.harness);
  // [model layer] warmup: one block per step before the first model call.
  if (changes.status === "READY" || changes.status === "WARMING_UP") {
    const blocks = warmupOf(session.history);
    if (blocks.length && !(await runWarmupBlock(env, agent, row, session, blocks, changes))) return;
  }
  if (changes.status === "READY") changes.setStatus("STARTED");
  if (row.pendingSeq !== null) {
    const pending = session.history.find((record) => record.seq === row.pendingSeq);
    if (!pending || pending.kind !== "model-response") {
      throw new CorruptRecordError({ jobId: row.id, location: `history[${row.pendingSeq}] (the pending model response)` });
    }
    changes.job.pendingSeq = null;
    const execution = await executeResponse(env, agent, row, session, pending.data, changes);
    if (execution.exitStatus !== undefined) return changes.finish(execution.exitStatus);
    // [model layer] harness: exceptions raised by executing the response.
    const state = readJobState(row, changes);
    const exceeded = countExceptions(limits, state, execution.exceptions);
    writeJobState(row, changes, { exceptions: state.exceptions, consecutiveExceptions: state.consecutiveExceptions });
    if (exceeded) return changes.fail(exceeded);
  }
  // [model layer] harness: the turn limit.
  const turnsExceeded = checkTurns(limits, row.turns, readJobState(row, changes), dialog);
  if (turnsExceeded) return changes.fail(turnsExceeded);
  await askModel(env, agent, row, [...session.history, ...changes.records], changes);
}

/** The job's warmup blocks, fixed at submit time. */
function warmupOf(history: readonly HistoryRecord[]): readonly WarmupBlock[] {
  const submitted = history.find((record) => record.kind === "submitted");
  return submitted?.kind === "submitted" ? submitted.data.warmup ?? [] : [];
}
