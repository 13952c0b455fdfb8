/**
 * @module
 * The job's record of waits that others settle (DESIGN.md §4, §7): a human's decision on an approval request
 * (who, when, which way) and the end of a child job. Cells watch the requests they open and the children
 * they start (`JobFutures.watched`, kept in the job's `state.watching` by the step that ends or suspends the
 * cell); each step first looks at the watched futures and appends an `approval` or `child-ended` record for
 * every one that settled — so the model reads it in its next turn whether or not its code awaits it. A
 * job without watched futures reads nothing.
 */
import { decisionOf } from "../../durable/approval-waits.ts";
import type { FutureRow, JobRow, JsonValue } from "../../store/store.ts";
import { llmRepr } from "../../tools/llm-repr.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { retried } from "../../store/store-retries.ts";

/** The watched keys a job's state holds. */
function watchingOf(state: Record<string, JsonValue>): string[] {
  const list = state.watching;
  return Array.isArray(list) ? list.filter((key): key is string => typeof key === "string") : [];
}

/** Appends a record for each watched future that settled, and stops watching it. */
export async function recordSettledWaits(env: StepEnvironment, row: JobRow, changes: StepChanges): Promise<void> {
  const watching = watchingOf(row.state);
  if (!watching.length) return;
  const remaining: string[] = [];
  for (const key of watching) {
    const future = await retried(env, () => env.store.getFuture(key));
    if (!future || future.jobId !== row.id) continue;
    if (future.state === "waiting") {
      remaining.push(key);
      continue;
    }
    if (future.kind === "approval") appendDecision(changes, future);
    else if (future.kind === "child") appendChildEnd(changes, future);
  }
  changes.job.state = { ...row.state, ...(changes.job.state ?? {}), watching: remaining };
}

/** Adds the keys a cell watches to the job's state (for the commit that ends or suspends the cell). */
export function watchWaits(row: JobRow, changes: StepChanges, keys: readonly string[]): void {
  if (!keys.length) return;
  const state = { ...row.state, ...(changes.job.state ?? {}) };
  changes.job.state = { ...state, watching: [...new Set([...watchingOf(state), ...keys])] };
}

const record = (value: JsonValue): Record<string, JsonValue> => (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {});

function appendDecision(changes: StepChanges, future: FutureRow): void {
  const decision = decisionOf(future);
  if (!decision || future.state === "cancelled") return;
  const data = record(future.data);
  changes.append("approval", {
    requestId: future.key,
    tool: typeof data.tool === "string" ? data.tool : "unknown",
    ...(typeof data.args === "string" ? { args: data.args } : {}),
    ...(typeof data.summary === "string" ? { summary: data.summary } : {}),
    approved: decision.approved,
    ...(decision.note === undefined ? {} : { note: decision.note }),
    by: decision.by,
    decidedAt: decision.decidedAt,
  });
}

function appendChildEnd(changes: StepChanges, future: FutureRow): void {
  if (future.state === "cancelled") return;
  const data = record(future.data);
  const value = record(future.value);
  const status = typeof value.status === "string" ? value.status : future.state === "resolved" ? "DONE" : "FAILED";
  changes.append("child-ended", {
    childId: future.key,
    role: typeof data.role === "string" ? data.role : "unknown",
    status,
    ...(future.state === "resolved" ? { result: value.value === undefined || value.value === null ? "" : llmRepr(value.value) } : {}),
    ...(typeof value.reason === "string" && value.reason ? { reason: value.reason } : {}),
  });
}
