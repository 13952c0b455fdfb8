/**
 * @module
 * One step of a job: execute the pending model response (its formal tool calls, then its
 * cell), then — unless the job finished — ask the model for the next response and commit it **before** it is
 * executed. Everything a step changes is committed in one transaction at its end, so a crash loses at most
 * the step in progress and never a committed model reply.
 */
import { context } from "@opentelemetry/api";
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { SPAN_NAMES, stepAttributes } from "../../telemetry/spans.ts";
import { contextFromCarrier, type TraceCarrier } from "../../telemetry/trace-carrier.ts";
import { failSpan, inSpan } from "../../telemetry/tracer.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { JobRow, JobStatus, Lease } from "../../store/store.ts";
import { agentForJob, DEFAULT_BREAKER_FAILURES, type Agent } from "../../agents/agent.ts";
import { askModel } from "./ask-model.ts";
import { chatStyleOf } from "../../agents/chat-styles/chat-style.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";
import { runErrorHandlers } from "./error-handlers.ts";
import { executeResponse } from "./execute-response.ts";
import { readJournal } from "./durable-cell.ts";
import { replyJournal } from "./journaled-reply.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import { effectiveLimits } from "../../agents/harness.ts";
import { checkTurns, countExceptions } from "./harness-checks.ts";
import type { HistoryRecord } from "../history/history.ts";
import { JobMemory } from "../memory/job-memory.ts";
import { memoryBindingOf } from "../memory/job-memory-view.ts";
import { DEFAULT_MEMORY_CATEGORIES } from "../../agents/memory.ts";
import { decodeHistory } from "../history/history-codec.ts";
import { sendDialog } from "./dialog-delivery.ts";
import type { JobSession } from "./job-sessions.ts";
import { PromptMemory } from "../prompt/prompt-memory.ts";
import { readJobState, writeJobState } from "./job-state.ts";
import { StepChanges } from "./step-changes.ts";
import { commitRebasing } from "./rebase-commit.ts";
import { StepTransaction, type StepTransactionOptions } from "./step-transaction.ts";
import { retried } from "../../store/store-retries.ts";
import type { StepEnvironment } from "./step-environment.ts";
import type { WarmupBlock } from "../../agents/warmup-blocks.ts";
import { runWarmupBlock } from "./warmup.ts";
import { announceChildEnd, parentSettlement } from "./child-jobs.ts";
import { recordSettledWaits } from "./settled-waits.ts";
import { errorMessage } from "../../errors/error-text.ts";
import { withRegistries } from "../../registries/registries.ts";

export { DEFAULT_MAX_TURNS, type StepEnvironment } from "./step-environment.ts";

/** What a step left its job as. */
export interface StepOutcome {
  /** The job's status before the step. */
  previous: JobStatus;
  status: JobStatus;
  /** For a `SUSPENDED` job, when it becomes runnable by itself (its earliest timer), else `null`. */
  wakeAt: number | null;
  /** The job's agent role, when its row could be read. */
  role?: string;
}

/**
 * The lease a caller stepping one job several times in a row (`runJob`, a worker) carries from a step to the
 * next: a step that leaves the job runnable keeps it, so the next needs no claim. The caller releases it when
 * it stops (`releaseCarriedLease`).
 */
export interface LeaseCarry {
  tx?: StepTransaction | undefined;
}

/**
 * Runs one step of job `id` for a caller that holds no lease on it (`statek.step`, `runJob`): claims the job —
 * waiting out another worker's live lease, which expires if that worker died — then steps it exactly as a
 * worker steps a job it claimed ({@link runClaimedStep}). Returns the job's status afterwards. Transient store
 * failures are retried (`store-retries.ts`); when they persist the step rejects and the job stays as it was.
 */
export async function runStep(env: StepEnvironment, id: string, carry?: LeaseCarry): Promise<JobStatus> {
  const first = await retried(env, () => env.store.getJob(id));
  if (!first) throw new NoSuchJobError({ jobId: id });
  let status: JobStatus;
  try {
    status = first.status;
  } catch (error) {
    return failCorrupt(env, first, error);
  }
  if (isFinal(status)) return status;
  // An agent this process does not have fails the call before the job is claimed.
  env.agentFor(first.role);
  const tx = takeCarried(carry, id) ?? (await claim(env, id));
  if (!tx) return status;
  try {
    return (await stepUnderLease(env, tx, carry)).status;
  } catch (error) {
    // A step whose lease was taken from it (an operator cancelled the job) wrote nothing; it reports where the
    // job stands now rather than failing.
    if (!tx.lost) throw error;
    // The canceller may still be running the job's error handlers: its commit comes shortly.
    for (let wait = 5; wait <= 640; wait *= 2) {
      const now = await retried(env, () => env.store.getJob(id));
      if (now && isFinal(now.status)) return now.status;
      if (!(await env.store.getLease(id))) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    throw error;
  }
}

/**
 * Runs one step of the job of `lease`, which the caller claimed already (a worker's `claimRunnable`), and
 * commits it under that lease. The lease is released whatever happens: by the commit, or when the step fails
 * or is aborted (`env.signal`), in which case nothing of it is written and the job can be claimed at once —
 * unless `carry` is given and the job stays runnable: then the commit keeps the lease in `carry`, and the next
 * call for the same lease steps the job under it, with no claim or release in between (a worker keeps a busy
 * job, and its warm workspace, instead of handing it to whichever process claims first). The caller releases a
 * lease left in `carry` with {@link releaseCarriedLease}.
 */
export function runClaimedStep(env: StepEnvironment, lease: Lease, carry?: LeaseCarry): Promise<StepOutcome> {
  const tx = takeCarried(carry, lease.jobId)
    ?? StepTransaction.adopt(env.store, lease, transactionOptions(env));
  return stepUnderLease(env, tx, carry);
}

/**
 * How a step's transaction runs: the lease's length is the environment's, which is the claimer's (a worker's own
 * `leaseMs` for the jobs it claims), so a lease is renewed at the rate it was taken.
 */
function transactionOptions(env: StepEnvironment): StepTransactionOptions {
  return { leaseMs: env.leaseMs, ...(env.signal ? { signal: env.signal } : {}), ...(env.onLeaseLate ? { onLate: env.onLeaseLate } : {}) };
}

/** Releases the lease a {@link LeaseCarry} still holds. */
export async function releaseCarriedLease(carry: LeaseCarry): Promise<void> {
  const tx = carry.tx;
  carry.tx = undefined;
  await tx?.abandon();
}

/** Final statuses: nothing more to step. */
export function isFinal(status: JobStatus): boolean {
  return status === "DONE" || status === "FAILED" || status === "CANCELLED";
}

/** The transaction `carry` kept for job `jobId`, if it is still usable; `carry` gives it up either way. */
function takeCarried(carry: LeaseCarry | undefined, jobId: string): StepTransaction | undefined {
  const held = carry?.tx?.usable && carry.tx.lease.jobId === jobId ? carry.tx : undefined;
  if (carry) carry.tx = undefined;
  return held;
}

/** The job's lease for one step, waiting out another worker's live lease (it expires if that worker died). */
async function claim(env: StepEnvironment, id: string): Promise<StepTransaction | null> {
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    const tx = await retried(env, () => StepTransaction.begin(env.store, id, env.owner, transactionOptions(env)));
    if (tx) return tx;
    const current = await retried(env, () => env.store.getJob(id));
    if (!current || isFinal(current.status) || env.signal?.aborted) return null;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * The one path of a step, whoever claimed its lease: read the job under the lease, step it, commit. The lease
 * is released unless `carry` keeps it for the next step of a job that stays runnable.
 */
function stepUnderLease(env: StepEnvironment, tx: StepTransaction, carry: LeaseCarry | undefined): Promise<StepOutcome> {
  // Argument preparation, llmRepr and the docs read the instance's registries through the step's context.
  return withRegistries(env.registries, () => stepWithRegistries(env, tx, carry));
}

async function stepWithRegistries(env: StepEnvironment, tx: StepTransaction, carry: LeaseCarry | undefined): Promise<StepOutcome> {
  const id = tx.lease.jobId;
  env.activeSteps?.set(id, tx);
  let kept = false;
  try {
    const row = await retried(env, () => env.store.getJob(id));
    if (!row) throw new NoSuchJobError({ jobId: id });
    let status: JobStatus;
    try {
      status = row.status;
    } catch (error) {
      return { previous: "FAILED", status: await failCorrupt(env, row, error), wakeAt: null };
    }
    if (isFinal(status)) return { previous: status, status, wakeAt: null };
    const outcome = await stepRow(env, env.agentFor(row.role), tx, carry !== undefined, row);
    kept = carry !== undefined && tx.usable;
    if (kept) carry!.tx = tx;
    return { ...outcome, role: row.role };
  } finally {
    if (env.activeSteps?.get(id) === tx) env.activeSteps.delete(id);
    if (!kept) await tx.abandon();
  }
}

/** One step of the job of `row`, read under `tx`'s lease: its history, then the step in the job's trace. */
async function stepRow(env: StepEnvironment, agent: Agent, tx: StepTransaction, keepLease: boolean, row: JobRow): Promise<StepOutcome> {
  env = { ...env, signal: tx.signal };
  const id = row.id;
  let session = env.sessions.take(id, row.version, agent);
  if (!session) {
    const rows = await retried(env, () => env.store.getHistory(id));
    let history: HistoryRecord[];
    try {
      history = decodeHistory(id, rows);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      return { previous: row.status, status: await failCorrupt(env, row, error), wakeAt: null };
    }
    session = { version: row.version, agent, history, workspace: undefined, prompt: new PromptMemory() } satisfies JobSession;
  }
  // The step joins the trace its job was submitted in (a worker in another process included).
  const parent = contextFromCarrier(submittedTrace(session.history), context.active());
  const loaded = session;
  return inSpan(SPAN_NAMES.step, { parent, attributes: stepAttributes(row) }, async (span, trace) => {
    const { changes, status } = await stepLoaded({ ...env, trace }, agent, row, loaded, tx, keepLease);
    span.setAttribute("statek.job.status", status);
    if (changes.failure) failSpan(span, `JobFailedError: ${changes.failure.reason}`);
    const wakeAt = status === "SUSPENDED" ? (changes.job.wakeAt !== undefined ? changes.job.wakeAt : row.wakeAt) : null;
    return { previous: row.status, status, wakeAt };
  });
}

/** The step once the job's history is at hand: execute, ask, run error handlers, commit; keep the session warm. */
async function stepLoaded(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, tx: StepTransaction, keepLease: boolean,
): Promise<{ changes: StepChanges; status: JobStatus }> {
  const id = row.id;
  const changes = new StepChanges(row);
  changes.breakerFailures = agent.breaker.failures;
  let committed = false;
  let reported: JobStatus | undefined;
  // The job the commit was made against, and what clients appended before it (a rebased commit).
  let base = row;
  let appended: HistoryRecord[] = [];
  try {
    try {
      // Approvals decided and children ended since the last step: the history says so before anything runs.
      await recordSettledWaits(env, row, changes, session.history);
      await executeAndAsk(env, agent, row, session, changes, tx);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      changes.fail(error.message, error);
    }
    // Every path to FAILED goes through changes.fail; its error handlers run before the failure commits.
    await runErrorHandlers(env, agent, changes);
    // Dialog messages reach the user only once the commit that records them is durable.
    if (changes.messages.length) {
      tx.afterCommit(async () => {
        reported = await sendDialog(env.store, agent, { id: row.id, role: row.role }, changes.messages);
      });
    }
    // A child that ends settles its parent's wait in the same commit: the parent never waits for an ended child.
    const ending = await parentSettlement(env, row, changes);
    if (ending) changes.settleFutures.push(ending);
    // Only a job that stays runnable keeps its lease: a suspended one must be claimable by whoever wakes it.
    const keep = keepLease && !isFinal(changes.status) && changes.status !== "SUSPENDED";
    // A client's append meanwhile (a pushed message) is rebased over, never a reason to ask the model again.
    const dialog = dialogStyle(row);
    ({ base, appended } = await commitRebasing(env, tx, row, changes, { keepLease: keep, dialog }));
    committed = true;
    if (ending) announceChildEnd(env.signals, row.parentId!, ending.key, ending.settlement);
  } finally {
    const suspended = changes.status === "SUSPENDED";
    // A delivery failure was committed after the step: the warm session no longer matches the job.
    if (committed && !isFinal(changes.status) && reported === undefined && (suspended || (session.workspace?.reusable ?? true))) {
      // A suspended cell ran part way in its VM, which then no longer holds the stored variables: the job keeps
      // its history warm (a resume reads no history) and restores a new VM, lazily, when its cell runs again.
      if (suspended) {
        session.workspace?.dispose();
        session.workspace = undefined;
      }
      session.version = base.version + 1;
      session.history.push(...appended, ...changes.records);
      env.sessions.keep(id, session);
    } else {
      session.workspace?.dispose();
    }
  }
  return { changes, status: reported ?? changes.status };
}

/** Whether the job's chat style is a dialog one; `false` when its metadata cannot be read (the step failed it). */
function dialogStyle(row: JobRow): boolean {
  try {
    return chatStyleRules(chatStyleOf(row.metadata)).dialog;
  } catch {
    return false;
  }
}

/** The trace context stored with the job when it was submitted, if any. */
function submittedTrace(history: readonly HistoryRecord[]): TraceCarrier | undefined {
  const submitted = history.find((record) => record.kind === "submitted");
  return submitted?.kind === "submitted" ? submitted.data.trace : undefined;
}

/** A row whose status cannot be read fails like any other job: through `StepChanges.fail`, handlers first. */
async function failCorrupt(env: StepEnvironment, row: JobRow, error: unknown): Promise<JobStatus> {
  const changes = new StepChanges(row);
  changes.fail(errorMessage(error), error);
  let agent: Agent | undefined;
  try {
    agent = env.agentFor(row.role);
  } catch {
    // The handlers still run, against the process's bindings only.
  }
  await runErrorHandlers(env, agent, changes);
  changes.breakerFailures = agent?.breaker.failures ?? DEFAULT_BREAKER_FAILURES;
  const ending = await parentSettlement(env, row, changes);
  if (ending) changes.settleFutures.push(ending);
  await retried(env, () => env.store.commit(changes.commit(row)));
  if (ending) announceChildEnd(env.signals, row.parentId!, ending.key, ending.settlement);
  return "FAILED";
}


async function executeAndAsk(env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, changes: StepChanges, tx: StepTransaction): Promise<void> {
  // [model layer] the job's chat style and harness limits; the agent as this job runs it (its own settings).
  let dialog: boolean;
  try {
    dialog = chatStyleRules(chatStyleOf(row.metadata)).dialog;
    agent = agentForJob(agent, row.metadata);
  } catch (error) {
    return changes.fail(`job metadata: ${errorMessage(error)}`);
  }
  const limits = effectiveLimits(agent.harness, env.harness);
  // Shared memory, read again each step: another job (or the application) may have written since.
  const binding = memoryBindingOf(session.history);
  if (binding) {
    session.memory ??= new JobMemory(env.store, binding, env.memoryCategories ?? DEFAULT_MEMORY_CATEGORIES);
    await session.memory.refresh();
  }
  // [model layer] warmup: one block per step before the first model call.
  // A warmup block that waited (the job suspended there) resumes in warmup.
  const waitedInWarmup = changes.status === "SUSPENDED" && row.state.suspendedIn === "warmup";
  if (changes.status === "READY" || changes.status === "WARMING_UP" || waitedInWarmup) {
    const blocks = warmupOf(session.history);
    if (blocks.length && !(await runWarmupBlock(env, agent, row, session, blocks, changes, tx))) return;
  }
  if (changes.status === "READY") changes.setStatus("STARTED");
  // The job's journal, read once for the step: the pending response's cell and the model's reply use it.
  let journal: Promise<Map<string, JournalItem[]>> | undefined;
  const readOnce = () => (journal ??= readJournal({ env, row, tx, changes, history: session.history }));
  if (row.pendingSeq !== null) {
    const pending = session.history.findLast((record) => record.seq === row.pendingSeq);
    if (!pending || pending.kind !== "model-response") {
      throw new CorruptRecordError({ jobId: row.id, location: `history[${row.pendingSeq}] (the pending model response)` });
    }
    changes.job.pendingSeq = null;
    const execution = await executeResponse(env, agent, row, session, pending.data, changes, tx, readOnce);
    if (execution.suspended) {
      // The cell waits for durable futures: the response stays pending, to be replayed when one settles.
      changes.job.pendingSeq = row.pendingSeq;
      return;
    }
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
  // A reply an earlier attempt at this step received is taken from the journal, not asked for again.
  const replies = replyJournal(tx, row, await readOnce());
  await askModel(env, agent, row, [...session.history, ...changes.records], changes, session.prompt, replies, session.memory);
}

/** The job's warmup blocks, fixed at submit time. */
function warmupOf(history: readonly HistoryRecord[]): readonly WarmupBlock[] {
  const submitted = history.find((record) => record.kind === "submitted");
  return submitted?.kind === "submitted" ? submitted.data.warmup ?? [] : [];
}
