/**
 * @module
 * `statek.cancelJob(id, reason)`: ends a job that has not finished as `CANCELLED`, with its descendants.
 *
 * The job is taken from whoever holds it (`StepTransaction.preempt`): a worker stepping it right now loses its
 * lease, so its next journal write, renewal or commit fails and it writes nothing more. Then, under the new
 * lease, the job's error handlers run (they receive a `JobCancelledError`) and one fenced commit records the
 * cancellation: status `CANCELLED`, the reason in the history and the view's `error`, every waiting future
 * cancelled. Then its children (`listJobs({ parentId })`) are cancelled the same way, and theirs.
 */
import { InvalidJobStatusError } from "../../errors/invalid-job-status-error.ts";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { JobRow } from "../../store/store.ts";
import type { Agent } from "../../agents/agent.ts";
import { runErrorHandlers } from "../step/error-handlers.ts";
import type { HistoryRecord } from "../history/history.ts";
import { StepChanges } from "../step/step-changes.ts";
import type { StepEnvironment } from "../step/step-environment.ts";
import { StepTransaction } from "../step/step-transaction.ts";
import { retried } from "../../store/store-retries.ts";
import { announceChildEnd, parentSettlement } from "../step/child-jobs.ts";

/** Commits that lose to a client's write (a pushed message) are tried again this often. */
const ATTEMPTS = 5;

/** Children listed per page while cancelling descendants. */
const PAGE = 100;

/** The reason recorded when none is given. */
export const DEFAULT_CANCEL_REASON = "cancelled by the application";

/** The reason `cancelJob` was given, checked: a non-empty string, or none. */
export function cancelReason(reason: unknown): string {
  if (reason === undefined) return DEFAULT_CANCEL_REASON;
  if (typeof reason !== "string" || reason.trim() === "") throw new TypeError("cancelJob: the reason must be a non-empty string");
  return reason;
}

/** The reason a descendant is cancelled with. */
export function inheritedReason(parentId: string, reason: string): string {
  return `its parent job ${parentId} was cancelled: ${reason}`;
}

/**
 * Cancels job `id` and its descendants (see the module comment).
 *
 * @throws {NoSuchJobError} For an unknown job.
 * @throws {InvalidJobStatusError} For a job that is `DONE`, `FAILED` or `CANCELLED` already.
 */
export async function cancelJob(env: StepEnvironment, id: string, reason: string): Promise<void> {
  const row = await retried(env, () => env.store.getJob(id));
  if (!row) throw new NoSuchJobError({ jobId: id });
  if (!(await cancelOne(env, id, reason))) {
    const now = await retried(env, () => env.store.getJob(id));
    throw new InvalidJobStatusError({
      jobId: id, status: now?.status ?? row.status, operation: "cancelJob", expected: "only a job that has not finished can be cancelled",
    });
  }
  await cancelChildren(env, id, reason);
}

/** Cancels the children of `parentId` that have not finished, and their children. */
async function cancelChildren(env: StepEnvironment, parentId: string, reason: string): Promise<void> {
  const children: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await retried(env, () => env.store.listJobs({ parentId, limit: PAGE, offset }));
    children.push(...page.map((child) => child.id));
    if (page.length < PAGE) break;
  }
  const childReason = inheritedReason(parentId, reason);
  for (const child of children) {
    // A child that finished already keeps its ending; its own children may still run.
    await cancelOne(env, child, childReason);
    await cancelChildren(env, child, childReason);
  }
}

/** Cancels one job; false when it is final (or unknown) and there was nothing to cancel. */
async function cancelOne(env: StepEnvironment, id: string, reason: string): Promise<boolean> {
  const tx = await retried(env, () => StepTransaction.preempt(env.store, id, env.owner, { leaseMs: env.leaseMs, ...(env.onLeaseLate ? { onLate: env.onLeaseLate } : {}) }));
  if (!tx) return false;
  // A step of this process running the job stops now rather than at its next write.
  env.activeSteps?.get(id)?.revoke(tx.lease);
  try {
    // Error handlers run once: a commit that loses to a client's write is rebuilt with the records they left.
    let handlerRecords: HistoryRecord[] | undefined;
    for (let attempt = 1; ; attempt++) {
      const row = await retried(env, () => env.store.getJob(id));
      if (!row || isFinalRow(row)) return false;
      const changes = new StepChanges(row);
      changes.cancel(reason);
      if (handlerRecords === undefined) {
        await runErrorHandlers(env, agentOf(env, row), changes);
        handlerRecords = changes.records.filter((record) => record.kind === "error-handler");
      } else {
        changes.failure?.handlers.splice(0);
        for (const record of handlerRecords) if (record.kind === "error-handler") changes.append("error-handler", record.data);
      }
      // A cancelled child's parent stops waiting for it in the same commit.
      const ending = await parentSettlement(env, row, changes);
      if (ending) changes.settleFutures.push(ending);
      try {
        await retried(env, () => tx.commit(changes.commit(row)));
        env.sessions.drop(id);
        if (ending) announceChildEnd(env.signals, row.parentId!, ending.key, ending.settlement);
        return true;
      } catch (error) {
        if (!(error instanceof JobConflictError) || attempt >= ATTEMPTS) throw error;
      }
    }
  } finally {
    await tx.abandon();
  }
}

function isFinalRow(row: JobRow): boolean {
  try {
    return row.status === "DONE" || row.status === "FAILED" || row.status === "CANCELLED";
  } catch {
    return false; // a status that cannot be read can still be cancelled (the commit repairs it)
  }
}

/** The job's agent, if this process has it; without it, handlers are decoded against the process's bindings. */
function agentOf(env: StepEnvironment, row: JobRow): Agent | undefined {
  try {
    return env.agentFor(row.role);
  } catch {
    return undefined;
  }
}
