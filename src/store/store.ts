/**
 * @module
 * The storage contract. A {@link Store} keeps jobs, their workspace variables and their history durably. The
 * job runner sees only this interface; `sqlite/` and (later) `postgres/` implement it, and both pass the one
 * conformance suite in `store.suite.ts`.
 *
 * Rows are plain data: JSON-able values and strings. Encoding workspace values is the workspace codec's job;
 * the store never looks inside a variable's blob or a history record's data.
 */

/** Every status a job can have, in lifecycle order. */
export const JOB_STATUSES = ["READY", "WARMING_UP", "STARTED", "SUSPENDED", "DONE", "FAILED"] as const;

/** A job's status. `DONE` and `FAILED` are final unless a user message restarts a dialog job. */
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
}

/** One workspace variable of a job. */
export interface VariableRow {
  name: string;
  /** The value encoded by the workspace codec (opaque to the store). */
  blob: string;
  /** Definition order: variables are restored in ascending `position`. */
  position: number;
}

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
  /** Variables to insert or replace. */
  putVariables?: VariableRow[];
  /** Names of variables to delete. */
  deleteVariables?: string[];
  /**
   * History records to append. Their `seq`s must continue the job's history densely (the first equals the
   * job's `historyLength`, each next one is 1 more), or the commit fails.
   */
  appendHistory?: HistoryRow[];
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

/** Options every async store operation accepts. */
export interface StoreCallOptions {
  /** Abandons the operation if it has not started yet. */
  signal?: AbortSignal;
}

/**
 * Durable storage for jobs. Every method is safe to call from many concurrent steps.
 *
 * A stored value that cannot be read back (bad JSON, an unknown status) must not break reads of anything
 * else: `getJob`, `listJobs` and `getHistory` return every row, and only reading the damaged field throws
 * `CorruptRecordError` naming the job and field — so the runner can fail that one job, and a commit that
 * replaces the field repairs it. Every implementation behaves this way (the SQLite tests pin it down; damaging
 * a row is engine-specific, so the shared suite cannot).
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
  /** Inserts a new job with its initial variables and history. Fails if the id exists. */
  insertJob(job: JobRow, variables: VariableRow[], history: HistoryRow[], options?: StoreCallOptions): Promise<void>;
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
  /** Finishes pending commits and releases the connection. Further calls fail. */
  close(): Promise<void>;
}
