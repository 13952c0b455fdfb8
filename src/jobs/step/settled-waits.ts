/**
 * @module
 * The job's record of waits that others settle: a human's decision on an approval request
 * (who, when, which way) and the end of a child job. Cells watch the requests they open and the children
 * they start (`JobFutures.watched`, kept in the job's `state.watching`). When a cell ends or suspends, and when
 * each step begins, the watched futures are looked at and an `approval` or `child-ended` record is appended for
 * every one that settled — so the model reads it in its next turn whether or not its code awaits it. Each key
 * is recorded once: a key whose record the history holds already (a retried step opened it again) is only
 * dropped. A job without watched futures reads nothing.
 */
import { decisionOf } from "../../durable/approval-waits.ts";
import type { FutureRow, JobRow, JsonValue } from "../../store/store.ts";
import { llmRepr } from "../../tools/llm-repr.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import type { HistoryRecord } from "../history/history.ts";
import { retried } from "../../store/store-retries.ts";

/** The watched keys a job's state holds. */
function watchingOf(state: Record<string, JsonValue>): string[] {
  const list = state.watching;
  return Array.isArray(list) ? list.filter((key): key is string => typeof key === "string") : [];
}

/** The keys whose `approval` or `child-ended` record the history (and this step) holds. */
function recordedKeys(history: readonly HistoryRecord[], changes: StepChanges): Set<string> {
  const keys = new Set<string>();
  for (const record of [...history, ...changes.records]) {
    if (record.kind === "approval") keys.add(record.data.requestId);
    else if (record.kind === "child-ended") keys.add(record.data.childId);
  }
  return keys;
}

/**
 * Appends a record for each watched future that settled and has none yet, and stops watching it. `history` is
 * the job's history before this step.
 */
export async function recordSettledWaits(
  env: Pick<StepEnvironment, "store" | "signal">, row: JobRow, changes: StepChanges, history: readonly HistoryRecord[],
): Promise<void> {
  const watching = watchingOf({ ...row.state, ...(changes.job.state ?? {}) });
  if (!watching.length) return;
  const recorded = recordedKeys(history, changes);
  const remaining: string[] = [];
  for (const key of watching) {
    if (recorded.has(key)) continue;
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
