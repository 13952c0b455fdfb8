/**
 * @module
 * The contract between the store's core (`store-core.ts`, which holds every rule) and an engine's adapter
 * (`sqlite/`, `postgres/`, or a third party's, given to `createStore`), which holds SQL only. An adapter reads
 * and writes rows exactly as asked; it never decides whether a write is allowed — versions, fences,
 * transitions, first-writer-wins and corruption are the core's. It does own what only the engine knows: its
 * transactions and locks, its clock, which of its errors are transient, how other processes' commits are
 * noticed (`watchWakeups`), and indexes that make the claim queries cheap. `docs/stores.md` shows how to write
 * one; `runAdapterSuite` checks it.
 *
 * Rows go in encoded ({@link JobValues}: JSON as text) and come out as {@link StoredRow}s of raw column values
 * keyed by field name (`parentId`, not `parent_id`), which the core decodes and checks (`store-rows.ts`).
 */
import type { FutureState } from "./durable-rows.ts";
import type { JobStatus, VariableRow } from "./store.ts";

/** A row as the engine returned it, keyed by field name; the core checks every value. */
export type StoredRow = Readonly<Record<string, unknown>>;

/** A job's columns as written: JSON fields as JSON text, and the lease columns. */
export interface JobValues {
  id: string;
  role: string;
  status: JobStatus;
  params: string;
  metadata: string;
  parentId: string | null;
  createdAt: number;
  updatedAt: number;
  version: number;
  turns: number;
  pendingSeq: number | null;
  historyLength: number;
  exitStatus: string | null;
  error: string | null;
  usage: string;
  state: string;
  wakeAt: number | null;
  cell: number;
  /** `null` when nobody holds the lease (never claimed, or released). */
  leaseOwner: string | null;
  /** Incremented by every claim; 0 for a job never claimed. */
  leaseEpoch: number;
  leaseUntil: number | null;
  /** The job's {@link ForkOrigin} as JSON text, `null` for a job that is no fork. */
  forkedFrom: string | null;
  /**
   * The first turn from which the job's variable versions are kept: its `turns` when it was inserted (a job
   * created before versions were kept: its `turns` then, set by the migration that added them).
   */
  versionsFrom: number;
}

/** One version of a job's variable: its value as a commit left it (`blob` `null`: deleted), under the job's turn. */
export interface VariableVersionValues {
  name: string;
  turn: number;
  position: number;
  blob: string | null;
}

/** A history record as written (`data` as JSON text). */
export interface HistoryValues {
  seq: number;
  kind: string;
  at: number;
  data: string;
}

/** A journal entry as written (`data` as JSON text). */
export interface JournalValues {
  index: number;
  data: string;
}

/** A future's columns as written (`value` and `data` as JSON text). */
export interface FutureValues {
  key: string;
  jobId: string | null;
  kind: string;
  wakeAt: number | null;
  state: FutureState;
  value: string;
  data: string;
  createdAt: number;
  settledAt: number | null;
}

/** An event as written; the engine assigns its increasing `id`. */
export interface EventValues {
  jobId: string;
  kind: string;
  at: number;
  data: string;
}

/** An agent's breaker as written. */
export interface AgentValues {
  role: string;
  /** `closed` or `open`. */
  state: string;
  reason: string | null;
  openedAt: number | null;
  failures: number;
  /** The queue size a loop last read for the agent, and when (`null` until a loop ran). */
  loopSize: number | null;
  loopAt: number | null;
  updatedAt: number;
}

/** A queued agent event as written; the engine assigns its increasing `id`. */
export interface AgentEventValues {
  role: string;
  data: string;
  at: number;
}

/** A shared-memory entry as written (`value` as JSON text). */
export interface MemoryValues {
  context: string;
  key: string;
  category: string;
  value: string;
  description: string;
  createdAt: number;
  updatedAt: number;
}

/** What {@link AdapterReads.readJobs} selects. */
export interface JobQuery {
  statuses?: readonly JobStatus[];
  role?: string;
  parentId?: string;
  limit: number;
  offset: number;
}

/**
 * What {@link AdapterReads.readJobPage} selects (checked by the core). Rows come newest first (`createdAt`, then
 * `id`, descending) — or oldest first when `after` is given (the core reverses them).
 */
export interface JobPageQuery {
  statuses?: readonly JobStatus[];
  role?: string;
  parentId?: string;
  /** `id >= idFrom AND id < idTo` and `id` starts with `idPrefix`. */
  idPrefix?: { prefix: string; upper: string };
  createdFrom?: number;
  createdTo?: number;
  /** Rows strictly after this key in descending order. */
  before?: { createdAt: number; id: string };
  /** Rows strictly after this key in ascending order. */
  after?: { createdAt: number; id: string };
  limit: number;
}

/** What {@link AdapterReads.readEvents} selects. */
export interface EventRowQuery {
  afterId: number;
  jobId?: string;
  limit: number;
}

/** What {@link AdapterTransaction.selectClaimable} selects. */
export interface ClaimQuery {
  /** The store's clock: leases with `until <= now` are expired, jobs with `wakeAt <= now` are due. */
  now: number;
  /** Only jobs of these roles (absent: every role). */
  roles?: readonly string[];
}

/** Reads. Every row is keyed by field name (see each method for the fields). */
export interface AdapterReads {
  /** The store's clock, epoch milliseconds (SQLite: the process's; PostgreSQL: the database's). */
  now(): Promise<number>;
  /** One job with every {@link JobValues} field, or `undefined`. */
  readJob(id: string): Promise<StoredRow | undefined>;
  /** Jobs with every {@link JobValues} field, newest first (`createdAt` descending, then insertion order descending). */
  readJobs(query: JobQuery): Promise<StoredRow[]>;
  /** Jobs with every {@link JobValues} field for an operator's page (see {@link JobPageQuery}). */
  readJobPage(query: JobPageQuery): Promise<StoredRow[]>;
  /** `status` and `count` rows: how many jobs match the query's filters (its statuses and paging ignored), by status. */
  countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]>;
  /** `name`, `blob`, `position` of a job's variables, by `position` then `name`. */
  readVariables(jobId: string): Promise<StoredRow[]>;
  /** `name`, `turn`, `position`, `blob` of a job's variable versions with `turn <= upToTurn`, by `name` then `turn`. */
  readVariableVersions(jobId: string, upToTurn: number): Promise<StoredRow[]>;
  /** `seq`, `kind`, `at`, `data` of a job's history from `fromSeq` on, by `seq`. */
  readHistory(jobId: string, fromSeq: number): Promise<StoredRow[]>;
  /** `cell`, `index`, `data` of a job's journal, by `index`. */
  readJournal(jobId: string): Promise<StoredRow[]>;
  /** One future with every {@link FutureValues} field, or `undefined`. */
  readFuture(key: string): Promise<StoredRow | undefined>;
  /** A job's futures (every field), by `createdAt` then `key`, optionally in one state. */
  readFutures(jobId: string, state?: FutureState): Promise<StoredRow[]>;
  /** Every job's `waiting` futures of `kind` (every field), by `createdAt` then `key`, at most `limit`. */
  readWaitingFutures(kind: string, limit: number): Promise<StoredRow[]>;
  /** Events (`id`, `jobId`, `kind`, `at`, `data`) with `id > afterId`, by `id`. */
  readEvents(query: EventRowQuery): Promise<StoredRow[]>;
  /** The largest event `id`, or `null`/`undefined` when there are no events. Must be served by the primary key. */
  readLastEventId(): Promise<unknown>;
  /**
   * One row, read in one statement with the store's clock read once: `now` (that clock); `runnable`, not null
   * when some job in an active status (`ACTIVE_STATUSES`) has no lease live at `now`; `wakeAt`, the smallest
   * `wakeAt` of a `SUSPENDED` job whose lease is not live at `now`; `leaseUntil`, the smallest `leaseUntil` of a
   * lease live at `now` — each among the jobs of `roles` when given, `null` when there is none. Must be served by
   * the partial indexes of the active, the timed and the leased jobs, never a scan of the waiting jobs.
   */
  readNextClaim(roles?: readonly string[]): Promise<StoredRow>;
  /** Each owner of a lease live at `now` (`leaseOwner`), once. Must be served by an index on the leased jobs. */
  readLeaseOwners(now: number): Promise<StoredRow[]>;
  /** Every {@link AgentValues} field of the stored agents (those of `roles` when given), by `role`. */
  readAgents(roles?: readonly string[]): Promise<StoredRow[]>;
  /** `role` and `count` of the queued events per role that has any (of `roles` when given), by `role`. Served by an index on (role, id). */
  countAgentEvents(roles?: readonly string[]): Promise<StoredRow[]>;
  /** `id`, `role`, `data`, `at` of `role`'s queued events, oldest (smallest `id`) first, at most `limit`. */
  readAgentEvents(role: string, limit: number): Promise<StoredRow[]>;
  /** The shared-memory entries of `contexts` (never empty), ordered by context, then key (byte-wise). */
  readMemory(contexts: readonly string[]): Promise<StoredRow[]>;
}

/**
 * One transaction. Writes see the transaction's own earlier writes; rows read with `lock…`/`select…` stay
 * locked against other transactions until it ends (PostgreSQL: `FOR UPDATE`; SQLite: the transaction holds
 * the database's write lock from its start).
 */
export interface AdapterTransaction extends AdapterReads {
  /**
   * The end of a batch's writes: waits for the writes the adapter has sent but not yet seen answered, throwing
   * the first one's error. An adapter that sends writes without waiting for them (PostgreSQL's pipeline) defines
   * it; the group commit calls it once, after the batch's last write and before the commit, so such an error is
   * one of the batch's writes, not the commit's. Nothing is written after it: an adapter may send its commit
   * along (PostgreSQL does), as long as a failed write rolls the transaction back.
   */
  flush?(): Promise<void>;
  /**
   * Tells other processes, with this transaction's commit, that it holds a waking write (PostgreSQL: a `NOTIFY`
   * the server delivers at the commit). Where defined, the group commit calls it instead of
   * {@link StoreAdapter.announceWakeup}.
   */
  announceWakeupOnCommit?(): void;
  /**
   * Runs `work` inside a savepoint: when it throws, only its writes are undone and the error is returned as a
   * failed result; the transaction goes on. Throws only when the savepoint itself cannot be undone (the whole
   * transaction is then lost).
   */
  savepoint<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
  /**
   * The fields of a job the rules read — `id`, `role`, `status`, `version`, `historyLength`, `wakeAt`, `turns`,
   * `versionsFrom` and the lease fields — locked for this transaction, or `undefined`.
   */
  lockJob(id: string): Promise<StoredRow | undefined>;
  /**
   * Inserts a job; `false` (and nothing written) when the id exists. The core writes the job's other rows before
   * it awaits the answer (and undoes them when the id existed), so an adapter may send them together.
   */
  insertJob(values: JobValues): Promise<boolean>;
  /** Sets the given columns of a job. */
  updateJob(id: string, values: Partial<Omit<JobValues, "id">>): Promise<void>;
  /** Inserts or replaces variables by name. */
  putVariables(jobId: string, variables: readonly VariableRow[]): Promise<void>;
  /** Deletes variables by name (unknown names are ignored). */
  deleteVariables(jobId: string, names: readonly string[]): Promise<void>;
  /** Inserts variable versions, replacing one of the same name and turn (a turn's execution may commit twice). */
  putVariableVersions(jobId: string, versions: readonly VariableVersionValues[]): Promise<void>;
  /** Appends history rows. */
  insertHistory(jobId: string, records: readonly HistoryValues[]): Promise<void>;
  /**
   * The two ends of the job's journal, read through its primary key (the cost does not grow with the journal):
   * `firstIndex` and `firstCell` of its lowest entry, `lastIndex` and `lastCell` of its highest; `undefined`
   * when it is empty.
   */
  journalEnds(jobId: string): Promise<StoredRow | undefined>;
  /** Appends journal entries for `cell`. */
  insertJournal(jobId: string, cell: number, entries: readonly JournalValues[]): Promise<void>;
  /** Deletes the job's whole journal. */
  deleteJournal(jobId: string): Promise<void>;
  /** The future (as {@link AdapterReads.readFuture}), locked for this transaction, or `undefined`. */
  lockFuture(key: string): Promise<StoredRow | undefined>;
  /** Inserts a future; `false` (and nothing written) when the key exists. */
  insertFuture(values: FutureValues): Promise<boolean>;
  /** Sets the given columns of a future. */
  updateFuture(key: string, values: Partial<Omit<FutureValues, "key">>): Promise<void>;
  /** Sets `state`, `value` and `settledAt` of every `waiting` future of a job. */
  settleWaitingFutures(jobId: string, values: Pick<FutureValues, "state" | "value" | "settledAt">): Promise<void>;
  /** Appends events in order (each gets the next id). */
  insertEvents(events: readonly EventValues[]): Promise<void>;
  /**
   * Deletes, among the `limit` events with the smallest ids, those stamped before `before`; returns how many.
   * Only the oldest rows are read (ids grow with time, so the events to prune are those).
   */
  deleteEventsBefore(before: number, limit: number): Promise<number>;
  /** Sets `leaseUntil` to `now` on every job whose lease `owner` holds live at `now`; returns how many. */
  expireLeasesOf(owner: string, now: number): Promise<number>;
  /**
   * Inserts a shared-memory entry, or — when its context and key exist — replaces its category, value,
   * description and `updatedAt` (keeping `createdAt`).
   */
  upsertMemory(values: MemoryValues): Promise<void>;
  /** Deletes a shared-memory entry; `true` when there was one. */
  deleteMemory(context: string, key: string): Promise<boolean>;
  /**
   * Jobs a claim may take, locked for this transaction and skipping rows other transactions hold (PostgreSQL:
   * `FOR UPDATE SKIP LOCKED`), each with `id`, `status`, `wakeAt`, `createdAt` and the lease fields: up to
   * `limit` jobs in an active status (`ACTIVE_STATUSES` of `store-rules.ts`) by `createdAt`, and up to `limit`
   * `SUSPENDED` jobs with `wakeAt <= now` by `wakeAt`; in both, only jobs whose lease is not live at `now`. Must
   * be served by partial indexes on exactly those sets, never a scan of the waiting jobs. The core merges and
   * re-checks them.
   */
  selectClaimable(query: ClaimQuery & { limit: number }): Promise<StoredRow[]>;
  /**
   * The agent's row (every {@link AgentValues} field), locked for this transaction — inserted first, with
   * `values`, when the role has none. Two transactions locking one role run one after the other (PostgreSQL:
   * `INSERT … ON CONFLICT DO NOTHING` then `FOR UPDATE`; SQLite: the write lock).
   */
  lockAgent(values: AgentValues): Promise<StoredRow>;
  /** Sets the given columns of an agent's row. */
  updateAgent(role: string, values: Partial<Omit<AgentValues, "role">>): Promise<void>;
  /** Appends an event to its role's queue; resolves to its id (increasing with each insert). */
  insertAgentEvent(values: AgentEventValues): Promise<unknown>;
  /** Deletes queued events by id (unknown ids are ignored). */
  deleteAgentEvents(ids: readonly number[]): Promise<void>;
  /**
   * How many jobs of `role` are `READY` or `WARMING_UP` (a number). Must be served by an index on those jobs
   * by role, never a scan of the role's finished jobs.
   */
  countPendingJobs(role: string): Promise<unknown>;
}

/** An engine's adapter. Reads outside a transaction never see another transaction's uncommitted writes. */
export interface StoreAdapter extends AdapterReads {
  /** The engine's name, e.g. `sqlite`. */
  readonly dialect: string;
  /** True when several processes may use the same database at once. */
  readonly supportsMultipleProcesses: boolean;
  /** Opens the connection when needed and brings the schema up to date under the engine's lock. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction that takes the engine's write lock at its start where the engine has one
   * (SQLite: `BEGIN IMMEDIATE`), commits when `work` resolves and rolls back when it rejects (rethrowing).
   */
  transaction<T>(work: (transaction: AdapterTransaction) => Promise<T>): Promise<T>;
  /**
   * The error to report for an engine failure: a `StoreError` whose `isRetryable` says whether repeating the
   * call may succeed (busy, locked, connection lost). Anything that is not the engine's is returned as it is.
   */
  classifyError(error: unknown): unknown;
  /** Closes the connection (the core has finished every call first). */
  close(): Promise<void>;
  /**
   * Tells other processes that a transaction with a waking write has committed, for an adapter whose
   * transactions cannot carry the hint ({@link AdapterTransaction.announceWakeupOnCommit}). Omitted where they
   * notice by themselves (SQLite's `data_version`) or cannot exist (`:memory:`).
   */
  announceWakeup?(): void;
  /**
   * Calls `listener` when another process may have committed a waking write (a hint: may be late, spurious or
   * coalesced), until the returned function is called. Omitted where no other process can write.
   */
  watchWakeups?(listener: () => void): () => void;
}
