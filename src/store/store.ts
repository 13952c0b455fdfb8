/**
 * @module
 * The storage contract. A {@link Store} keeps jobs, their workspace variables and their history durably, and
 * the rows of durable execution (`durable-rows.ts`): leases that fence every write of a step, the current
 * cell's journal, durable futures and the outbox of job events. The job runner sees only this interface. Its
 * behaviour is implemented once, in `store-core.ts` (with the rules of `store-rules.ts`), over an engine's
 * `StoreAdapter` (`store-adapter.ts`) that holds SQL only: `sqlite/`, `postgres/`, or an adapter of your own
 * given to `createStore`. Every store passes the one conformance suite (`store.suite.ts`).
 *
 * Rows are plain data: JSON-able values and strings. Encoding workspace values is the workspace codec's job;
 * the store never looks inside a variable's blob or a history record's data.
 */
import type { AgentEventRow, AgentJobsRequest, AgentJobsResult, AgentOutcome, AgentRow } from "./agent-rows.ts";
import type { Fence, FutureKind, FutureRow, FutureSettlement, FutureState, Journal, JobEventRow, JournalEntry, Lease, NewFuture, NewJobEvent, SettleResult, WaitDoor } from "./durable-rows.ts";

export type { Fence, FutureKind, FutureRow, FutureSettlement, FutureState, Journal, JobEventRow, JournalEntry, Lease, NewFuture, NewJobEvent, SettleResult, WaitDoor };
export type { AgentEventRow, AgentJobSource, AgentJobsRequest, AgentJobsResult, AgentOutcome, AgentRow, BreakerState, NewJobRows } from "./agent-rows.ts";


/** Every status a job can have, in lifecycle order. */
export const JOB_STATUSES = ["READY", "WARMING_UP", "STARTED", "SUSPENDED", "DONE", "FAILED", "CANCELLED"] as const;

/**
 * A job's status. `DONE`, `FAILED` and `CANCELLED` are final, except that a user message restarts a `DONE`
 * dialog job and `retryJob` resumes a `FAILED` one. A `SUSPENDED` job waits for durable futures. Which changes
 * a commit may make is `STATUS_TRANSITIONS` (`store-rules.ts`).
 */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A JSON value, as stored in JSON columns. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One job, as stored. */
export interface JobRow {
  /** Unique id (a UUID). */
  id: string;
  /** The `role` of the agent that runs the job. */
  role: string;
  status: JobStatus;
  /** Job parameters given at submit time (prompt placeholders, application data). */
  params: Record<string, JsonValue>;
  /** The agent metadata frozen at submit time (`MODEL`, `CHAT_STYLE`, …). */
  metadata: Record<string, JsonValue>;
  /** The parent job's id for a sub-job, else `null`. */
  parentId: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last commit. */
  updatedAt: number;
  /** Incremented by every commit; a commit names the version it read (optimistic concurrency). */
  version: number;
  /** Number of model responses committed so far. */
  turns: number;
  /** `seq` of the committed model response that has not been executed yet, else `null`. */
  pendingSeq: number | null;
  /**
   * Number of history records (the next record's `seq`). Maintained by the store: `insertJob` and `commit`
   * set it from the records they append. A value given by the caller must agree, or the call fails.
   */
  historyLength: number;
  /** The value given to `exit(status)`, encoded by the workspace codec, else `null`. */
  exitStatus: string | null;
  /** A readable reason when the job is `FAILED`, else `null`. */
  error: string | null;
  /** Accumulated model usage (token counts, cost). */
  usage: Record<string, JsonValue>;
  /** Job-level runner state that needs no column of its own (harness counters, error handlers, …). */
  state: Record<string, JsonValue>;
  /**
   * When a `SUSPENDED` job becomes runnable by itself (its earliest timer), else `null` (it waits to be woken).
   * Settling one of its futures sets it to the settlement time, so the job becomes runnable at once. Ignored
   * for other statuses (they are runnable anyway).
   */
  wakeAt: number | null;
  /** The number of the job's current cell: its journal and its runner's idempotency keys carry it. Starts at 0. */
  cell: number;
  /** The job and turn this job was forked from ({@link Store.insertFork}); absent for a job that is no fork. */
  forkedFrom?: ForkOrigin;
}

/** Where a forked job comes from: the job, and the turn at whose end the fork took its workspace and history. */
export interface ForkOrigin {
  jobId: string;
  /** The turn (the `turns` count of the job then): 0 is the end of warmup, before the first model response. */
  turn: number;
}

/**
 * A new job forked from another ({@link Store.insertFork}): its row (with `forkedFrom` set, and `turns` equal to the
 * fork's turn), its history (the copied records and any it adds), and the variables it binds over the copied ones.
 */
export interface JobFork {
  job: JobRow & { forkedFrom: ForkOrigin };
  history: HistoryRow[];
  /**
   * Variables put over those copied (a name the original had keeps its position; a new one comes after the
   * others, in the given order: the positions given are ignored).
   */
  putVariables: VariableRow[];
}

/** One workspace variable of a job. */
export interface VariableRow {
  name: string;
  /** The value encoded by the workspace codec (opaque to the store). */
  blob: string;
  /** Definition order: variables are restored in ascending `position`. */
  position: number;
}

/**
 * One entry of shared memory (`statek.memory(…)`): a value kept under a key in a context, the durable knowledge
 * jobs share (a user's preferences, an entity's facts). A context is a set of specifiers (`user:42`, `team:7`).
 */
export interface MemoryEntry {
  /** The context's specifiers, sorted and without duplicates, as a JSON array: `["team:7","user:42"]`. */
  context: string;
  /** The name agent code knows it by (an identifier). */
  key: string;
  /** A registered category (`PREFERENCE`, `ENTITY`, `VOCABULARY`, …), upper case. */
  category: string;
  value: JsonValue;
  /** What it means, for the model. */
  description: string;
  /** When the key was first written, and when last (epoch milliseconds). */
  createdAt: number;
  updatedAt: number;
}

/** Most contexts one {@link Store.readMemory} call may name. */
export const MAX_MEMORY_CONTEXTS = 1024;

/** One durable history record of a job (§8.1): model responses, tool calls, console output, messages, … */
export interface HistoryRow {
  /** 0-based, dense, in append order. */
  seq: number;
  /** What the record is (`model-response`, `console`, `tool-call`, …); the job runner defines the kinds. */
  kind: string;
  /** Epoch milliseconds. */
  at: number;
  data: JsonValue;
}

/**
 * The changes one step makes to one job, applied atomically: either all of them land or none does. The
 * store increments `version` by 1, sets `updatedAt`, and sets `historyLength` to the last appended `seq` + 1.
 * `deleteVariables` is applied before `putVariables`, so a name in both ends up put.
 */
export interface JobCommit {
  id: string;
  /** The `version` the step read; the commit fails with `JobConflictError` if the job has moved on. */
  expectedVersion: number;
  /**
   * Job fields to change. `version`, `updatedAt` and `historyLength` are the store's; a `historyLength`
   * given here must equal the length after `appendHistory`, or the commit fails.
   */
  job?: Partial<Omit<JobRow, "id" | "role" | "version" | "createdAt" | "updatedAt">>;
  /**
   * Variables to insert or replace. Each put and each deletion is also kept as a version of the variable, under
   * the job's `turns` as the commit finds it (the turn whose execution changed it), for {@link Store.insertFork}.
   */
  putVariables?: VariableRow[];
  /** Names of variables to delete. */
  deleteVariables?: string[];
  /**
   * History records to append. Their `seq`s must continue the job's history densely (the first equals the
   * job's `historyLength`, each next one is 1 more), or the commit fails.
   */
  appendHistory?: HistoryRow[];
  /**
   * The step's lease. When given, the commit fails with `LeaseLostError` unless the job's lease has this owner
   * and epoch (it may have expired: a step that still holds the epoch may commit) and was not released. Every
   * commit of a step that runs under a lease gives it; clients that change a job from outside (a pushed
   * message) do not. The fence is checked before `expectedVersion`.
   */
  fence?: Fence;
  /** Deletes the job's journal: its cell is over (the job's `cell` is normally incremented in the same commit). */
  clearJournal?: boolean;
  /**
   * Futures the job starts waiting for. A key settled before anyone created it is adopted: it keeps its
   * settlement and takes this job, kind, `wakeAt` and data. A key the job created already is kept as it is (a
   * replay creates it again); a key of another job fails the commit.
   */
  createFutures?: NewFuture[];
  /**
   * Keys of the futures a job this commit leaves `SUSPENDED` waits for. When one of them is settled already
   * (before the step could see it, or adopted above), the job's `wakeAt` becomes now, so a suspension never
   * misses a settlement that raced it.
   */
  wakeIfSettled?: string[];
  /** Cancels every future of the job that is still waiting (a cancelled job waits for nothing). */
  cancelFutures?: boolean;
  /**
   * Futures this commit settles, each as {@link Store.settleFuture} would (through its door, first writer wins,
   * waking the job that waits): a child's final commit settles its parent's wait for it, so the child's end and
   * the parent's wake-up land together. A key that does not exist is skipped.
   */
  settleFutures?: Array<{ key: string; settlement: FutureSettlement }>;
  /** Events appended to the outbox in the same transaction (they carry this commit's job id unless they name one). */
  events?: NewJobEvent[];
  /** Releases the lease (`fence`, required) with the commit: the job is free for any worker. */
  releaseLease?: boolean;
  /**
   * Counts the job's end for its agent's circuit breaker in the same transaction (given with the commit that
   * makes the job `DONE` or `FAILED`); when it opens the breaker, an `agent-breaker` event is appended.
   */
  agentOutcome?: AgentOutcome;
}

/** What {@link Store.readEvents} returns. */
export interface EventQuery {
  /** Only events after this id (the last one a reader saw). @default 0 */
  afterId?: number;
  /** Only this job's events. */
  jobId?: string;
  /** At most this many, in id order. @default 1000 */
  limit?: number;
}

/** Which jobs {@link Store.claimRunnable} may claim. */
export interface ClaimFilter {
  /** Only jobs of these roles (the agents a worker has). */
  roles?: readonly string[];
}

/** What {@link Store.nextClaim} tells. */
export interface NextClaim {
  /**
   * Milliseconds of the store's clock until a job can be claimed: 0 when one can be claimed now (an active job,
   * or a `SUSPENDED` one whose `wakeAt` has come, without a live lease); else until the earliest `wakeAt` of a
   * `SUSPENDED` job nobody holds or the earliest end of a live lease (if its holder died, its job is claimable
   * then); `null` when only a write can make a job claimable (a submit, a message, a settlement).
   */
  inMs: number | null;
  /** Whether a job is under a live lease now (a worker steps it; it may be a worker that has died). */
  leased: boolean;
}

/** Which jobs {@link Store.listJobs} returns. */
export interface JobFilter {
  status?: JobStatus | JobStatus[];
  role?: string;
  parentId?: string;
  /** At most this many rows, newest first. @default 100 */
  limit?: number;
  /** Skip this many rows (paging). @default 0 */
  offset?: number;
}

/** A job's place in the operator's list order (newest first: `createdAt` descending, then `id` descending). */
export interface JobCursor {
  createdAt: number;
  id: string;
}

/**
 * Which jobs {@link Store.browseJobs} returns: one page of the operator's list, by keyset (a cursor, never an
 * offset), so that every page of 100,000 jobs costs the same. Filters combine with AND.
 */
export interface JobBrowseQuery {
  /** Only jobs in one of these statuses (an empty list matches nothing). */
  status?: readonly JobStatus[];
  role?: string;
  parentId?: string;
  /** Only jobs whose id starts with this text (served by the primary key). */
  idPrefix?: string;
  /** Only jobs created at or after this time (epoch milliseconds). */
  createdFrom?: number;
  /** Only jobs created before this time (epoch milliseconds). */
  createdTo?: number;
  /** The page after this job in list order (older jobs). Not together with `after`. */
  before?: JobCursor;
  /** The page before this job in list order (newer jobs); the page is still returned newest first. */
  after?: JobCursor;
  /** At most this many rows (1–1000). @default 50 */
  limit?: number;
}

/** What {@link Store.countJobs} counts: the filters of {@link JobBrowseQuery} that are not about status or paging. */
export type JobCountQuery = Pick<JobBrowseQuery, "role" | "parentId" | "idPrefix" | "createdFrom" | "createdTo">;

/** Options every async store operation accepts. */
export interface StoreCallOptions {
  /** Abandons the operation if it has not started yet. */
  signal?: AbortSignal;
}

/**
 * Where a wake-up hint comes from: `local` for a write made through this store object (heard after it
 * committed, before its caller goes on), `remote` for another store object's or another process's.
 */
export type WakeupOrigin = "local" | "remote";

/** Where {@link Store.followEvents} starts, and which events it delivers. */
export interface FollowOptions {
  /** Only events after this outbox id (where a reader stopped). @default the newest event when following starts: only new ones */
  afterId?: number;
  /** Only this job's events. */
  jobId?: string;
}

/** What {@link Store.followEvents} delivers to. */
export interface EventFollower {
  /** Events in id order, each once: first those the outbox holds after the starting point, then new ones as they commit. */
  onEvents(events: readonly JobEventRow[]): void;
  /** A read failed after its retries; following goes on, and the next wake-up reads again. */
  onError?(error: unknown): void;
}

/** One {@link Store.followEvents} in progress. */
export interface EventFollow {
  /** Resolves to the id following started after, once it is known (`afterId`, or the newest event then). */
  readonly started: Promise<number>;
  /**
   * Resolves once every event whose commit this store object had heard of when it was called has been delivered
   * (what happened before a live event, in this process, is delivered before it).
   */
  caughtUp(): Promise<void>;
  /** Stops the deliveries. */
  stop(): void;
}

/**
 * Durable storage for jobs. Every method is safe to call from many concurrent steps.
 *
 * A stored value that cannot be read back (bad JSON, an unknown status, a number that is not one) must not
 * break reads of anything else: `getJob`, `listJobs`, `getHistory`, `getVariables`, `getJournal`, the futures
 * and the events return every row, and only reading the damaged field throws `CorruptRecordError` naming the
 * job and field — so the runner can fail that one job, and a commit that replaces the field repairs it. The
 * conformance suite damages rows through a hook each adapter supplies (`StoreSuiteOptions.damage`).
 *
 * A failure of the engine itself is a `StoreError` whose `isRetryable` says whether repeating the call may
 * succeed (busy, locked, connection lost) — worked out once by the implementation from the engine's code, so
 * the job runner retries transient failures and never records them as a job's failure.
 */
export interface Store {
  /** The engine's name, e.g. `sqlite`. */
  readonly dialect: string;
  /** True when several processes may commit to the same store at once (SQLite files: yes, `:memory:`: no). */
  readonly supportsMultipleProcesses: boolean;
  /** Creates or upgrades the schema (versioned migrations). Idempotent; safe when several processes race. */
  migrate(options?: StoreCallOptions): Promise<void>;
  /**
   * Inserts a new job with its initial variables (kept as their first versions, under the job's `turns`) and
   * history, and appends its `job-submitted` event (`data: { role }`) in the same transaction, so every reader of
   * the outbox hears of every job. Fails if the id exists.
   */
  insertJob(job: JobRow, variables: VariableRow[], history: HistoryRow[], options?: StoreCallOptions): Promise<void>;
  /**
   * Inserts a job forked from `fork.job.forkedFrom` as {@link insertJob} does, in one transaction with what it
   * copies: the original's variables as they were at the end of the fork's turn — for each name, its last version
   * written at a turn no later than that one; a name deleted then is absent — with `fork.putVariables` put over
   * them, and the versions of the original's variables up to that turn (so the fork can itself be forked there).
   * The original is only read. Fails naming the reason when the original does not exist, when the fork's turn is
   * past the original's `turns`, and when the original's variables are not kept back to that turn (a job created
   * before versions were kept: from the turn it had then).
   */
  insertFork(fork: JobFork, options?: StoreCallOptions): Promise<void>;
  /** One job, or `null` when there is no job with that id. */
  getJob(id: string, options?: StoreCallOptions): Promise<JobRow | null>;
  /** A job's variables in ascending `position`; empty for an unknown job. */
  getVariables(id: string, options?: StoreCallOptions): Promise<VariableRow[]>;
  /** A job's history in `seq` order, optionally from `fromSeq` on; empty for an unknown job. */
  getHistory(id: string, options?: StoreCallOptions & { fromSeq?: number }): Promise<HistoryRow[]>;
  /**
   * Applies one step's changes atomically. Commits that arrive together may share one transaction (group
   * commit); each still succeeds or fails on its own. Throws `JobConflictError` when `expectedVersion` is
   * stale and `NoSuchJobError` when the job does not exist.
   */
  commit(change: JobCommit, options?: StoreCallOptions): Promise<void>;
  /** Jobs matching the filter, newest first. */
  listJobs(filter?: JobFilter, options?: StoreCallOptions): Promise<JobRow[]>;
  /**
   * One page of jobs for operator views, newest first (`createdAt` descending, then `id` descending), by keyset:
   * the next page is `before` the last row of this one. Served by indexes (status, role, parent, creation time,
   * id prefix), so a page costs the same at any depth.
   */
  browseJobs(query?: JobBrowseQuery, options?: StoreCallOptions): Promise<JobRow[]>;
  /** How many jobs match, by status (every status present, 0 when none). */
  countJobs(query?: JobCountQuery, options?: StoreCallOptions): Promise<Record<JobStatus, number>>;

  // Leases. Times are the store's clock: lease expiry never depends on a worker's clock.

  /**
   * Claims job `jobId` for `owner` for `leaseMs`: succeeds when the job has no live lease (none, expired,
   * released) and is not final, whatever its status otherwise (a `SUSPENDED` job that is not due included);
   * bumps the epoch. `null` when a live lease exists (anyone's, this owner's too: a holder renews, it does not
   * claim again), or the job is final or unknown.
   */
  claimJob(jobId: string, owner: string, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null>;
  /**
   * Claims up to `limit` runnable jobs without a live lease: `READY`, `WARMING_UP` and `STARTED` jobs, and
   * `SUSPENDED` jobs whose `wakeAt` has come. Oldest first, by the time each became runnable as the store knows
   * it (`createdAt`, or `wakeAt` for a woken job). Two concurrent callers — in one process or several — never
   * claim the same job. Served by indexes: never a scan of the waiting jobs.
   */
  claimRunnable(owner: string, leaseMs: number, limit: number, filter?: ClaimFilter, options?: StoreCallOptions): Promise<Lease[]>;
  /**
   * When a job (of `filter.roles`) can next be claimed if nothing is written meanwhile ({@link NextClaim}): what
   * a worker with free slots asks before it claims, and what it arms its one timer on. One read, served by the
   * partial indexes of the runnable, the timed and the leased jobs, never a scan of the waiting jobs.
   */
  nextClaim(filter?: ClaimFilter, options?: StoreCallOptions): Promise<NextClaim>;
  /** Extends a lease that is still this fence's (even if it has expired, as long as nobody claimed since); else `null`. */
  renewLease(jobId: string, fence: Fence, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null>;
  /** Releases a lease that is still this fence's (expired or not); does nothing otherwise. */
  releaseLease(jobId: string, fence: Fence, options?: StoreCallOptions): Promise<void>;
  /**
   * Claims job `jobId` for `owner` even while another owner holds a live lease: an operator's action on a job a
   * worker may be stepping right now (cancelling it). Bumps the epoch, so the previous holder's fence is void at
   * once: its renewals return `null`, its journal writes and its commit fail with `LeaseLostError`. `null` for a
   * final or unknown job.
   */
  preemptJob(jobId: string, owner: string, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null>;
  /** The job's current lease (live or expired), or `null` when nobody holds one (never claimed, or released). */
  getLease(jobId: string, options?: StoreCallOptions): Promise<Lease | null>;
  /**
   * The owners holding live leases now, each once. Served by an index on the leased jobs (a job's lease is
   * released when its step ends), never a scan.
   */
  leaseOwners(options?: StoreCallOptions): Promise<string[]>;
  /**
   * Ends every live lease `owner` holds, now, as if it had expired; resolves to how many. For an owner known to
   * be gone (a worker process that died): its jobs are claimable at once instead of after `leaseMs`. The epoch
   * is not bumped (the next claim does), so calling it for an owner that is in fact alive lets another worker
   * claim its jobs while it steps them — its commits then fail with `LeaseLostError`, nothing is repeated,
   * but work is.
   */
  expireLeases(owner: string, options?: StoreCallOptions): Promise<number>;

  // The journal of the current cell: appended outside the step's commit, fenced, group-committed.

  /**
   * Appends entries to the job's journal for cell `cell`. The first entry's `index` continues the journal
   * densely (0 when the journal is empty or belongs to an earlier cell, which it then replaces); a cell older
   * than the journal's fails. Fails with `LeaseLostError` when `fence` is not the job's lease, and with
   * `NoSuchJobError` for an unknown job. Appends that arrive together share a transaction with commits (group
   * commit), in call order.
   */
  appendJournal(jobId: string, fence: Fence, cell: number, entries: JournalEntry[], options?: StoreCallOptions): Promise<void>;
  /** The job's journal, or `null` when it has none. */
  getJournal(jobId: string, options?: StoreCallOptions): Promise<Journal | null>;

  // Futures.

  /**
   * Creates futures for a job under its lease (outside a commit: a tool returned `ctx.future(key)`), with the
   * rules of `JobCommit.createFutures`. Fails with `LeaseLostError` when `fence` is not the job's lease.
   */
  createFutures(jobId: string, fence: Fence, futures: NewFuture[], options?: StoreCallOptions): Promise<void>;
  /**
   * Settles the future `key`, first writer wins. A key nobody created yet is created settled (`jobId` null, kind
   * `external`), so an application that answers before the job waits loses nothing. When the future belongs to
   * a job, a `future-settled` event is appended, and a `SUSPENDED` job's `wakeAt` becomes now (it is runnable at
   * once). The job's version does not change: a step racing the settlement sees it through `wakeIfSettled`.
   */
  settleFuture(key: string, settlement: FutureSettlement, options?: StoreCallOptions): Promise<SettleResult>;
  /** One future, or `null`. */
  getFuture(key: string, options?: StoreCallOptions): Promise<FutureRow | null>;
  /** A job's futures, oldest first (then by key), optionally only those in one state. */
  listFutures(jobId: string, filter?: { state?: FutureState }, options?: StoreCallOptions): Promise<FutureRow[]>;
  /**
   * The `waiting` futures of one kind across every job, oldest first (then by key), at most `limit` (default
   * 1000): what operators list (pending approvals). Served by an index of waiting futures by kind, never a scan
   * of jobs or of settled futures.
   */
  waitingFutures(query: { kind: FutureKind; limit?: number }, options?: StoreCallOptions): Promise<FutureRow[]>;

  // The outbox of job events (wake-ups across processes, `statek.events()`, the UI).

  /** Events in id order, after `afterId`. */
  readEvents(query?: EventQuery, options?: StoreCallOptions): Promise<JobEventRow[]>;
  /** The id of the newest event, or 0 when the outbox is empty (where a reader that wants only new events starts). */
  lastEventId(options?: StoreCallOptions): Promise<number>;
  /**
   * Deletes events stamped before `before` (epoch ms), oldest first, at most `limit` (default 10,000) in one
   * transaction; resolves to how many went. Readers only follow recent events (wake-ups, `statek.events()`, the
   * UI's live feed), so a worker prunes the outbox periodically. Reads only the oldest rows, never a scan.
   */
  pruneEvents(query: { before: number; limit?: number }, options?: StoreCallOptions): Promise<number>;
  /** Appends events outside a commit (a client's action on a job), in order, sharing the group commit. */
  appendEvents(events: Array<NewJobEvent & { jobId: string }>, options?: StoreCallOptions): Promise<void>;
  /**
   * Follows the outbox: hands `follower` the events after `options.afterId` (or, without it, those committed
   * from now on), optionally one job's, in id order and each once — those already stored first, then new ones
   * as they commit, whichever process wrote them. Every follower of one store object shares one reader: one
   * cursor, read by pages, transient failures retried, woken by the store's one wake-up subscription
   * ({@link subscribeWakeups}); nothing is read while nobody follows. A follower that throws is ignored.
   */
  followEvents(follower: EventFollower, options?: FollowOptions): EventFollow;

  // Wake-ups: how a worker learns, without scanning, that there may be work.

  /**
   * Calls `listener` after a write that may have made a job runnable or appended events — a job inserted or
   * committed, a future settled, a lease released, events appended — with where it came from
   * ({@link WakeupOrigin}): a write through this store object is heard as soon as it has committed, before its
   * caller goes on; another process's (for a store shared between processes) soon after. A hint, not a record:
   * calls are coalesced, may come late or for nothing, and the listener looks at the store itself
   * (`claimableIn`, `claimRunnable`, `readEvents`). SQLite files notice other processes' commits by polling
   * `PRAGMA data_version`; PostgreSQL uses `LISTEN/NOTIFY` with a safety poll. A subscription keeps the process
   * alive until it is stopped (or the store closed). Returns the function that stops the calls.
   */
  subscribeWakeups(listener: (origin: WakeupOrigin) => void): () => void;
  /**
   * The shared-memory entries of `contexts` (each a context's JSON array of specifiers; at most
   * {@link MAX_MEMORY_CONTEXTS}), ordered by context, then key.
   */
  readMemory(contexts: readonly string[], options?: StoreCallOptions): Promise<MemoryEntry[]>;
  /** Writes a shared-memory entry: a new key, or a new value of one (its `createdAt` is kept). */
  putMemory(entry: MemoryEntry, options?: StoreCallOptions): Promise<void>;
  /** Deletes a shared-memory entry; `false` when there was none. */
  deleteMemory(context: string, key: string, options?: StoreCallOptions): Promise<boolean>;

  // Agents that run themselves: queued events, loops, circuit breakers.

  /**
   * Appends an event (encoded by the job runner) to `role`'s FIFO; resolves to its id. A waking write: workers
   * of other processes hear of it.
   */
  pushAgentEvent(role: string, blob: string, options?: StoreCallOptions): Promise<number>;
  /**
   * Creates jobs of an agent from its events or for its loop ({@link AgentJobsRequest}), in one transaction
   * that first locks the agent: two callers for one role — in one process or several — never take the same
   * event, and a loop's count of pending jobs includes every job created before it. Creates nothing while the
   * agent's breaker is open.
   */
  createAgentJobs(request: AgentJobsRequest, options?: StoreCallOptions): Promise<AgentJobsResult>;
  /**
   * The agents of `roles` (a closed breaker and no events for a role the store has never seen), or, without
   * `roles`, every agent the store has a breaker or queued events for, by role.
   */
  agents(roles?: readonly string[], options?: StoreCallOptions): Promise<AgentRow[]>;
  /**
   * Closes `role`'s breaker and clears its count of failures (events queued meanwhile are kept); resolves to
   * `true` when it was open, and appends an `agent-breaker` event then.
   */
  resetAgent(role: string, options?: StoreCallOptions): Promise<boolean>;
  /** The oldest queued events of `role`, at most `limit` (default 100), without taking them. */
  peekAgentEvents(role: string, limit?: number, options?: StoreCallOptions): Promise<AgentEventRow[]>;
  /** Finishes pending commits and releases the connection. Further calls fail. */
  close(): Promise<void>;
}
