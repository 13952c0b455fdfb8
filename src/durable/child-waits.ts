/**
 * @module
 * Child jobs as one cell of their parent sees them. A tool that returns `ctx.startJob(…)` makes
 * the parent's cell create the child here — a durable future of kind `child` (keyed by the child's id) first,
 * then the child's rows, both idempotent, so a replay or an idempotent call made again starts nothing twice —
 * and agent code gets the child's handle. Awaiting the handle is a durable wait on that future: the child's
 * end settles it (`jobs/step/child-jobs.ts`), and a parent suspended on it wakes.
 */
import { ChildJobFailed } from "../errors/child-job-failed.ts";
import type { Fence, FutureRow, HistoryRow, JobRow, JsonValue, VariableRow } from "../store/store.ts";
import type { ChildHandleInfo, FutureOutcome } from "../workspace/cell-host.ts";
import type { FutureSignals } from "./future-signals.ts";
import type { FutureStore } from "./job-futures.ts";

/** What the child waits need from the parent's cell. */
export interface ChildWaitContext {
  store: FutureStore;
  /** The parent. */
  jobId: string;
  fence: Fence;
  signals: FutureSignals;
  /** The parent's registered error handlers (`state.errorHandlers`): children inherit them. */
  errorHandlers: JsonValue;
  /** Settles the parent's future of a child that ended without doing so (its process stopped in between). */
  childEnded?(child: JobRow): Promise<void>;
  keep(stop: () => void): void;
}

/** A child's rows as the tool's reply carries them (built by `jobs/step/child-jobs.ts`). */
export interface ChildSpec {
  params: Record<string, JsonValue>;
  metadata: Record<string, JsonValue>;
  state: Record<string, JsonValue>;
  variables: VariableRow[];
  history: HistoryRow[];
}

/** A handle's state for a child's status: not started yet, running, ended. */
export function handleState(status: string): string {
  if (status === "READY") return "WAITING";
  if (status === "DONE") return "COMPLETED";
  if (status === "FAILED" || status === "CANCELLED") return "ERROR";
  return "STARTED";
}

const isRecord = (value: unknown): value is Record<string, JsonValue> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads a child's spec from the journaled reply; a `TypeError` for anything else (the journal is a stored record). */
function specOf(value: unknown): ChildSpec {
  const bad = (what: string): never => {
    throw new TypeError(`a child job's record is malformed (${what})`);
  };
  if (!isRecord(value)) return bad("not an object");
  const { params, metadata, state, variables, history } = value;
  if (!isRecord(params) || !isRecord(metadata) || !isRecord(state)) return bad("params, metadata, state");
  if (!Array.isArray(variables) || !Array.isArray(history)) return bad("variables, history");
  const rows = variables.map((row) => {
    if (!isRecord(row) || typeof row.name !== "string" || typeof row.blob !== "string" || typeof row.position !== "number") return bad("a variable");
    return { name: row.name, blob: row.blob, position: row.position };
  });
  const records = history.map((row) => {
    if (!isRecord(row) || typeof row.seq !== "number" || typeof row.kind !== "string" || typeof row.at !== "number") return bad("a history record");
    return { seq: row.seq, kind: row.kind, at: row.at, data: row.data ?? null };
  });
  return { params, metadata, state, variables: rows, history: records };
}

/**
 * Creates the child a tool started (unless it exists: a replay, an idempotent call made again) and the parent's
 * future for its end; returns what its handle shows.
 */
export async function startChild(context: ChildWaitContext, data: unknown): Promise<ChildHandleInfo> {
  const { store, jobId, fence } = context;
  const { key, role, spec } = isRecord(data) ? data : {};
  if (typeof key !== "string" || typeof role !== "string") throw new TypeError("a child job without its id and role");
  // The future first: a child that ends at once finds it (its settlement is never lost).
  await store.createFutures(jobId, fence, [{ key, jobId, kind: "child", wakeAt: null, data: { role } }]);
  let child = await store.getJob(key);
  if (!child) {
    const rows = specOf(spec);
    // Siblings are ordered by creation (`findTask()` is the latest): one started in the same millisecond as the
    // one before it comes a millisecond after it.
    const [newest] = await store.listJobs({ parentId: jobId, limit: 1 });
    const now = Math.max(Date.now(), newest ? newest.createdAt + 1 : 0);
    const job: JobRow = {
      id: key, role, status: "READY", params: rows.params, metadata: rows.metadata, parentId: jobId, createdAt: now, updatedAt: now, version: 0, turns: 0,
      pendingSeq: null, historyLength: rows.history.length, exitStatus: null, error: null, usage: {},
      state: { ...rows.state, ...(Array.isArray(context.errorHandlers) && context.errorHandlers.length ? { errorHandlers: context.errorHandlers } : {}) },
      wakeAt: null, cell: 0,
    };
    try {
      await store.insertJob(job, rows.variables, rows.history);
    } catch (error) {
      // Another attempt at the same call inserted it meanwhile: that one is the child.
      if (!(await store.getJob(key))) throw error;
    }
    child = await store.getJob(key);
  }
  if (!child || child.parentId !== jobId) throw new TypeError(`the job ${key} is not a child of this job`);
  return { id: key, role: child.role, state: handleState(child.status) };
}

/** How a settled child future reads to the waiting code. */
export function childOutcomeOf(row: Pick<FutureRow, "state" | "value">): FutureOutcome | undefined {
  switch (row.state) {
    case "waiting":
      return undefined;
    case "resolved":
      return { value: isRecord(row.value) ? row.value.value : undefined };
    case "rejected": {
      const value = isRecord(row.value) ? row.value : {};
      return { error: { name: "ChildJobFailed", message: typeof value.message === "string" ? value.message : "the child job failed" } };
    }
    case "cancelled":
      // The parent's own waits were cancelled (the parent was cancelled).
      return { error: { name: "CancelledError", message: typeof row.value === "string" ? row.value : "the wait was cancelled" } };
  }
}

/** The wait of an awaited child handle: its exit value, or `ChildJobFailed`. */
export async function openChild(context: ChildWaitContext, data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
  const { store, jobId, signals } = context;
  const key = isRecord(data) ? data.key : undefined;
  if (typeof key !== "string") return { outcome: { error: { name: "TypeError", message: "await of a child job without its id" } }, durable: false };
  let row = await store.getFuture(key);
  if (!row || row.jobId !== jobId || row.kind !== "child") return { outcome: { error: { name: "TypeError", message: `${key} is not a child job of this job` } }, durable: false };
  if (row.state === "waiting" && context.childEnded) {
    // A child that ended without telling its parent (its worker stopped in between) is told about now.
    const child = await store.getJob(key);
    if (child && ["DONE", "FAILED", "CANCELLED"].includes(child.status)) {
      await context.childEnded(child);
      row = (await store.getFuture(key)) ?? row;
    }
  }
  const known = childOutcomeOf(row);
  if (known) return { outcome: known, durable: true };
  context.keep(signals.once(key, () => {
    void store.getFuture(key).then((settled) => {
      const outcome = settled ? childOutcomeOf(settled) : undefined;
      if (outcome) settle(outcome);
    }, () => {});
  }));
  return { durable: true };
}

/** The settlement of a child's future for its final row: its exit value (as JSON), or `ChildJobFailed`. */
export function childSettlement(child: JobRow, exitValue: JsonValue): { state: "resolved" | "rejected"; value: JsonValue } {
  if (child.status === "DONE") return { state: "resolved", value: { status: "DONE", value: exitValue } };
  const error = new ChildJobFailed({ childId: child.id, role: child.role, status: child.status, reason: child.error ?? "" });
  return { state: "rejected", value: { status: child.status, name: error.name, message: error.message, reason: child.error ?? "" } };
}
