/**
 * @module
 * The rules of the store contract, written once above the adapters: which status changes a
 * commit may make, which jobs are runnable, what a lease and its fence are worth, how writes must continue a
 * job's history and journal, and what a well-formed write looks like. Adapters hold SQL only; `store-core.ts`
 * applies these rules to what they read, inside their transactions.
 */
import { LeaseLostError } from "../errors/lease-lost-error.ts";
import { WaitKindError } from "../errors/wait-kind-error.ts";
import type { Fence, FutureKind, Lease, WaitDoor } from "./durable-rows.ts";
import { JOB_STATUSES } from "./store.ts";
import type { JobStatus } from "./store.ts";

/** Statuses of jobs that are runnable whatever their `wakeAt` (the store's runnable index holds exactly these). */
export const ACTIVE_STATUSES = ["READY", "WARMING_UP", "STARTED"] as const satisfies readonly JobStatus[];

/** The status of a job that waits: runnable only once its `wakeAt` has come. */
export const WAITING_STATUS = "SUSPENDED" satisfies JobStatus;

/** Statuses no lease can be taken on. `DONE` and `FAILED` may still be left by a commit (see {@link STATUS_TRANSITIONS}). */
export const FINAL_STATUSES = ["DONE", "FAILED", "CANCELLED"] as const satisfies readonly JobStatus[];

/**
 * The status changes a commit may make (staying in a status is always allowed). A step commits only its end
 * state, so an active job may end in any later status in one commit (`READY` → `DONE` when warmup exits).
 * Leaving a final status: a user message restarts a `DONE` dialog job (`STARTED`), `retryJob` resumes a
 * `FAILED` job where it stood; `CANCELLED` is final for good. Nothing returns to `READY` except a retried job
 * that failed before it started.
 */
export const STATUS_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  READY: ["WARMING_UP", "STARTED", "SUSPENDED", "DONE", "FAILED", "CANCELLED"],
  WARMING_UP: ["STARTED", "SUSPENDED", "DONE", "FAILED", "CANCELLED"],
  STARTED: ["SUSPENDED", "DONE", "FAILED", "CANCELLED"],
  // A waiting warmup block resumes in WARMING_UP; a woken cell in STARTED, or ends the job in the same step.
  SUSPENDED: ["WARMING_UP", "STARTED", "DONE", "FAILED", "CANCELLED"],
  DONE: ["STARTED"],
  FAILED: ["READY", "WARMING_UP", "STARTED", "SUSPENDED"],
  CANCELLED: [],
};

/** True for a known status. */
export function isJobStatus(value: unknown): value is JobStatus {
  return (JOB_STATUSES as readonly unknown[]).includes(value);
}

/** True for a status that takes no lease. */
export function isFinal(status: JobStatus): boolean {
  return (FINAL_STATUSES as readonly JobStatus[]).includes(status);
}

/**
 * Checks a commit's status change. `from` is `undefined` when the stored status cannot be read: any status may
 * then be written (that is how a corrupt row is repaired, usually by failing the job).
 */
export function checkTransition(jobId: string, from: JobStatus | undefined, to: JobStatus | undefined): void {
  if (to === undefined || from === undefined || from === to) return;
  const allowed = STATUS_TRANSITIONS[from];
  if (!allowed.includes(to)) {
    const options = allowed.length === 0 ? `nothing leaves ${from}` : `${from} may become ${allowed.join(", ")}`;
    throw new Error(`commit to job ${jobId}: a ${from} job cannot become ${to} (${options})`);
  }
}

/** True when a job in `status` with `wakeAt` may run at `now` (leases aside). */
export function isRunnable(status: JobStatus, wakeAt: number | null, now: number): boolean {
  if ((ACTIVE_STATUSES as readonly JobStatus[]).includes(status)) return true;
  return status === WAITING_STATUS && wakeAt !== null && wakeAt <= now;
}

/**
 * The time from which a runnable job counts as waiting for a worker (claims take the oldest first): a woken
 * job's `wakeAt`, else its `createdAt`.
 */
export function runnableSince(status: JobStatus, wakeAt: number | null, createdAt: number): number {
  return status === WAITING_STATUS && wakeAt !== null ? wakeAt : createdAt;
}

/** A job's lease columns as stored: `owner` is `null` when nobody holds it (never claimed, or released). */
export interface StoredLease {
  owner: string | null;
  epoch: number;
  until: number | null;
}

/** True while a lease holds by the store's clock. */
export function isLive(lease: StoredLease, now: number): boolean {
  return lease.owner !== null && lease.until !== null && lease.until > now;
}

/** True when `fence` names the job's current lease: same owner and epoch, not released. Expiry does not matter. */
export function holds(lease: StoredLease, fence: Fence): boolean {
  return lease.owner !== null && lease.owner === fence.owner && lease.epoch === fence.epoch;
}

/** Throws {@link LeaseLostError} unless `fence` names the job's current lease. */
export function checkFence(jobId: string, lease: StoredLease, fence: Fence): void {
  if (!holds(lease, fence)) {
    throw new LeaseLostError({ jobId, owner: fence.owner, epoch: fence.epoch, currentOwner: lease.owner, currentEpoch: lease.epoch });
  }
}

/** The lease a claim takes: the next epoch, until `now + leaseMs`. */
export function claimedLease(jobId: string, current: StoredLease, owner: string, leaseMs: number, now: number): Lease {
  return { jobId, owner, epoch: current.epoch + 1, until: now + leaseMs };
}

/** The public view of a stored lease, or `null` when nobody holds it. */
export function toLease(jobId: string, lease: StoredLease): Lease | null {
  return lease.owner === null || lease.until === null ? null : { jobId, owner: lease.owner, epoch: lease.epoch, until: lease.until };
}

/** Records appended to a sequence must continue it densely: a gap or an overlap means the writer lost track. */
export function checkContinues(what: string, jobId: string, start: number, positions: readonly number[]): void {
  positions.forEach((position, offset) => {
    if (position !== start + offset) {
      throw new Error(`job ${jobId}: ${what} ${position} does not continue the job's ${what.split(" ")[0]} (the next one is ${start + offset})`);
    }
  });
}

/** Each kind of wait: what it is, in words, and its one door (with the calls that open it, for errors). */
const WAIT_KINDS: Readonly<Record<FutureKind, { what: string; door: WaitDoor }>> = {
  external: { what: "an application's future", door: "application" },
  approval: { what: "an approval request", door: "decision" },
  message: { what: "a wait for a pushed message", door: "message" },
  timer: { what: "a timer", door: "time" },
  child: { what: "a wait for a child job's end", door: "child-end" },
  checked: { what: "a checked future", door: "check" },
};

/** What opens each door, as errors name it. */
const DOOR_CALLS: Readonly<Record<WaitDoor, string>> = {
  application: "resolveFuture()/rejectFuture()",
  decision: "approve()/deny()",
  message: "pushMessage()",
  time: "its time coming",
  "child-end": "the child job's end",
  check: "a worker's check",
};

/** The kind of future a settlement through `door` creates when nobody created the key yet; `undefined`: none may. */
export function earlyKindOf(door: WaitDoor): FutureKind | undefined {
  return door === "application" ? "external" : door === "message" ? "message" : undefined;
}

/**
 * Throws {@link WaitKindError} unless `door` settles a future of `kind`: its own door, time for the timeout of an
 * application's future or a checked one (one with a `wakeAt`), or the application for a checked future (a
 * webhook may answer before the next check).
 */
export function checkDoor(key: string, kind: FutureKind, wakeAt: number | null, door: WaitDoor): void {
  const own = WAIT_KINDS[kind];
  if (door === own.door || (door === "time" && (kind === "external" || kind === "checked") && wakeAt !== null)) return;
  if (door === "application" && kind === "checked") return;
  const settledBy = kind === "checked" ? `${DOOR_CALLS.check} or ${DOOR_CALLS.application}` : DOOR_CALLS[own.door];
  throw new WaitKindError({ key, kind, what: own.what, settledBy, refused: DOOR_CALLS[door] });
}
