/**
 * @module
 * The rows of durable execution: leases that fence every write of a step, the per-cell
 * journal, durable futures, and the outbox of job events. Like the rest of the store they are plain data; what
 * a journal entry or an event *means* is the job runner's business.
 */
import type { JsonValue } from "./store.ts";

/**
 * A lease on a job: only the holder of the current `epoch` may write the job's step (journal, futures it
 * creates, commit). Claiming bumps the epoch, so a worker that lost its lease can never write again.
 *
 * A lease is *live* until `until`. Expiry only makes the job claimable: the holder's fence stays valid (it may
 * renew and write) until somebody claims the job. Releasing ends the lease at once: the fence is no longer
 * valid, and `getLease` returns `null` until the next claim.
 */
export interface Lease {
  jobId: string;
  /** Who holds it (a worker's id: `host:pid:random`). */
  owner: string;
  /** Incremented by every claim. */
  epoch: number;
  /** Epoch milliseconds (the store's clock) until which the lease holds unless renewed. */
  until: number;
}

/** The proof of a lease a write carries. */
export interface Fence {
  owner: string;
  epoch: number;
}

/**
 * One entry of a job's current-cell journal. Entries are append-only and densely numbered from 0 within the
 * cell; the runner writes an `intent` before a side-effecting crossing and its result afterwards as a later
 * entry — the store never updates one in place.
 */
export interface JournalEntry {
  /** 0-based, dense within the cell. */
  index: number;
  data: JsonValue;
}

/** A job's journal: the cell it belongs to (the job's `cell` counter when it was written) and its entries. */
export interface Journal {
  cell: number;
  entries: JournalEntry[];
}

/** Every kind of durable future. */
export const FUTURE_KINDS = ["timer", "message", "approval", "child", "external", "checked"] as const;

/** What a durable future waits for. A future settled before anyone created it is `external` until a job adopts it. */
export type FutureKind = (typeof FUTURE_KINDS)[number];

/** Every state a future can be in; only `waiting` ever changes, and only once (first writer wins). */
export const FUTURE_STATES = ["waiting", "resolved", "rejected", "cancelled"] as const;

/** A future's state. */
export type FutureState = (typeof FUTURE_STATES)[number];

/** A durable future: something a job waits for, settled once by whoever comes first. */
export interface FutureRow {
  /** Unique, chosen by the creator (`${jobId}:${cell}:${seq}` for the runner's own; the application's key for `ctx.future`). */
  key: string;
  /** The job that waits, or `null` for a future settled before any job created it. */
  jobId: string | null;
  kind: FutureKind;
  /** When a timer is due (epoch milliseconds), else `null`. A future may have both a value to wait for and a timeout. */
  wakeAt: number | null;
  state: FutureState;
  /** The settled value (resolved), error (rejected) or reason (cancelled); `null` while waiting. */
  value: JsonValue;
  /** Data the creator keeps with it (an approval's request, a child job's id, …). */
  data: JsonValue;
  createdAt: number;
  settledAt: number | null;
}

/** A future to create, as a step creates it (`jobId` must be the job that creates it). */
export type NewFuture = Omit<FutureRow, "state" | "value" | "settledAt" | "createdAt"> & { jobId: string };

/**
 * Who settles a future: every kind of wait has one door, and the store refuses a settlement
 * through another kind's (`WaitKindError`): `application` (`resolveFuture`/`rejectFuture`) settles `external`
 * futures, `decision` (`approve`/`deny`) approval requests, `message` (`pushMessage`) message waits, `time`
 * timers and the timeouts of external futures, `child-end` a parent's wait for its child, `check` a worker's
 * check of a `checked` future (which its timeout and the application may settle too).
 */
export const WAIT_DOORS = ["application", "decision", "message", "time", "child-end", "check"] as const;

/** One of {@link WAIT_DOORS}. */
export type WaitDoor = (typeof WAIT_DOORS)[number];

/** How to settle a future. */
export interface FutureSettlement {
  state: Exclude<FutureState, "waiting">;
  value: JsonValue;
  /** Who settles it: must be the door of the future's kind (see {@link WaitDoor}). */
  door: WaitDoor;
}

/** What {@link Store.settleFuture} did. */
export interface SettleResult {
  /** False when the future was already settled (first writer wins): `future` then holds the earlier settlement. */
  settled: boolean;
  future: FutureRow;
}

/** One event of the outbox, in commit order. */
export interface JobEventRow {
  /** Increasing with commit order (readers resume after the last id they saw). */
  id: number;
  jobId: string;
  kind: string;
  at: number;
  data: JsonValue;
}

/**
 * An event to append, as a commit or a settlement appends it. `kind` is a non-empty string; the store appends
 * two kinds itself: `job-submitted` (`data: { role }`) with every job it inserts, and `future-settled` (`data:
 * { key, state }`) when a job's future is settled.
 */
export type NewJobEvent = Omit<JobEventRow, "id" | "at" | "jobId"> & { jobId?: string };
