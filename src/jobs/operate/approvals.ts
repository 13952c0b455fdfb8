/**
 * @module
 * `statek.approve`, `statek.deny` and `statek.pendingApprovals`: a human's decision on a job's
 * approval request settles its durable future (first decision wins; a second one is an
 * {@link ApprovalDecidedError} naming the first); a job suspended on it wakes, a cell of this process that
 * waits for it hears it at once, and the job's next step records the decision — who, when, which way — in
 * its history (`jobs/step/settled-waits.ts`). Pending requests come from an index of waiting futures by kind, never
 * from a scan of jobs.
 */
import { decisionOf, isApprovalGuard } from "../../durable/approval-waits.ts";
import type { FutureSignals } from "../../durable/future-signals.ts";
import { outcomeOf } from "../../durable/job-futures.ts";
import { ApprovalDecidedError } from "../../errors/approval-decided-error.ts";
import { deniedMessage } from "../../errors/approval-denied.ts";
import { JobNotWaitingError } from "../../errors/job-not-waiting-error.ts";
import { NoSuchApprovalError } from "../../errors/no-such-approval-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { FutureRow, JsonValue, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";

/** Options of `approve` and `deny`. */
export interface ApprovalDecisionOptions {
  /** Why: the approved call sees it in `ctx.approval.note`; a denial's note is the `ApprovalDenied` message. */
  note?: string;
  /** Who decided, for the job's history. @default "local" */
  by?: string;
}

/** One approval request a job waits for. */
export interface PendingApproval {
  jobId: string;
  /** What `approve`/`deny` name. */
  requestId: string;
  /** The tool whose call waits (`requestApproval` for a plain request). */
  tool: string;
  /** The call's validated arguments (plain data as it is, other values as their readable form). */
  args: Record<string, JsonValue>;
  /** What the request says (`requestApproval(summary)`). */
  summary?: string;
  requestedAt: Date;
}

/** Which requests {@link listPendingApprovals} returns. */
export interface PendingApprovalFilter {
  jobId?: string;
  /** Only requests of jobs with this agent role. */
  role?: string;
  /** At most this many, oldest first. @default 1000 */
  limit?: number;
}

/** Settles approval request `requestId` of job `jobId`; see the module comment. */
export async function decideApproval(
  store: Store, signals: FutureSignals, call: "approve" | "deny", jobId: unknown, requestId: unknown, options: ApprovalDecisionOptions = {},
): Promise<void> {
  if (typeof jobId !== "string" || !jobId) throw new TypeError(`${call}: jobId must be a job's id`);
  if (typeof requestId !== "string" || !requestId) throw new TypeError(`${call}: requestId must be a request's id (see pendingApprovals())`);
  if (typeof options !== "object" || options === null) throw new TypeError(`${call}: options must be an object such as { note, by }`);
  const { note, by = "local" } = options;
  if (note !== undefined && typeof note !== "string") throw new TypeError(`${call}: note must be a string`);
  if (typeof by !== "string" || !by.trim()) throw new TypeError(`${call}: by must be a non-empty string naming who decided`);
  const job = await withStoreRetries(() => store.getJob(jobId));
  if (!job) throw new NoSuchJobError({ jobId });
  const request = await withStoreRetries(() => store.getFuture(requestId));
  if (!request || request.jobId !== jobId || request.kind !== "approval" || isApprovalGuard(request)) throw new NoSuchApprovalError({ jobId, requestId });
  // A finished job (or a cancelled one: its requests were cancelled) waits for nothing; else the first decision stands.
  if (["DONE", "FAILED", "CANCELLED"].includes(job.status) || request.state === "cancelled") {
    if (request.state === "waiting" || request.state === "cancelled") throw new JobNotWaitingError({ jobId, status: job.status, what: "approvals" });
  }
  if (decisionOf(request)) throw decidedError(jobId, requestId, request);
  const decidedAt = Date.now();
  const value: JsonValue = call === "approve"
    ? { approved: true, by, decidedAt, ...(note === undefined ? {} : { note }) }
    : { approved: false, name: "ApprovalDenied", message: deniedMessage(note), by, decidedAt, ...(note === undefined ? {} : { note }) };
  const result = await withStoreRetries(() => store.settleFuture(requestId, { state: call === "approve" ? "resolved" : "rejected", value, door: "decision" }));
  // Settled already: by another decision, or by this one, retried after its answer was lost on the way back.
  if (!result.settled && !isThisDecision(result.future, call === "approve", by, decidedAt, note)) throw decidedError(jobId, requestId, result.future);
  const outcome = outcomeOf(result.future);
  if (outcome) signals.emit(requestId, outcome);
}

/** True when the stored decision is the one made here (same verdict, decider, note and moment). */
function isThisDecision(row: FutureRow, approved: boolean, by: string, decidedAt: number, note: string | undefined): boolean {
  const stored = decisionOf(row);
  return stored !== undefined && row.state !== "cancelled" && stored.approved === approved && stored.by === by && stored.decidedAt === decidedAt && stored.note === note;
}

function decidedError(jobId: string, requestId: string, row: FutureRow): ApprovalDecidedError {
  const decision = decisionOf(row)!;
  return new ApprovalDecidedError({ jobId, requestId, decision: { approved: decision.approved, by: decision.by, decidedAt: decision.decidedAt, note: decision.note } });
}

/** The approval requests jobs wait for, oldest first. */
export async function listPendingApprovals(store: Store, filter: PendingApprovalFilter = {}): Promise<PendingApproval[]> {
  if (typeof filter !== "object" || filter === null) throw new TypeError("pendingApprovals: filter must be an object such as { jobId, role }");
  const { jobId, role, limit = 1000 } = filter;
  if (jobId !== undefined && typeof jobId !== "string") throw new TypeError("pendingApprovals: jobId must be a string");
  if (role !== undefined && typeof role !== "string") throw new TypeError("pendingApprovals: role must be a string");
  if (!(Number.isInteger(limit) && limit > 0)) throw new TypeError("pendingApprovals: limit must be a positive integer");
  const rows = jobId !== undefined
    ? (await withStoreRetries(() => store.listFutures(jobId, { state: "waiting" }))).filter((row) => row.kind === "approval")
    : await withStoreRetries(() => store.waitingFutures({ kind: "approval", limit: role === undefined ? limit : Math.max(limit, 1000) }));
  const pending: PendingApproval[] = [];
  for (const row of rows) {
    const approval = pendingOf(row);
    if (!approval || (role !== undefined && approval.role !== role)) continue;
    pending.push(approval.pending);
    if (pending.length >= limit) break;
  }
  return pending;
}

/** A request as listed; `undefined` for a guard row or a request whose data cannot be read. */
function pendingOf(row: FutureRow): { pending: PendingApproval; role: string } | undefined {
  if (row.jobId === null || isApprovalGuard(row)) return undefined;
  const data = typeof row.data === "object" && row.data !== null && !Array.isArray(row.data) ? row.data : undefined;
  if (!data || typeof data.tool !== "string") return undefined;
  const args = typeof data.argsJson === "object" && data.argsJson !== null && !Array.isArray(data.argsJson) ? data.argsJson : {};
  const requestedAt = typeof data.requestedAt === "number" ? data.requestedAt : row.createdAt;
  return {
    role: typeof data.role === "string" ? data.role : "",
    pending: {
      jobId: row.jobId, requestId: row.key, tool: data.tool, args,
      ...(typeof data.summary === "string" ? { summary: data.summary } : {}),
      requestedAt: new Date(requestedAt),
    },
  };
}
