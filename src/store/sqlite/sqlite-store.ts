/**
 * @module
 * The SQLite {@link Store}, on `node:sqlite`. The contract's documentation is in `../store.ts`; this file
 * documents only what is particular to SQLite.
 */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import { JOB_STATUSES } from "../store.ts";
import type { HistoryRow, JobCommit, JobFilter, JobRow, Store, StoreCallOptions, VariableRow } from "../store.ts";
import { SQLITE_SYNCHRONOUS_MODES } from "./sqlite-config.ts";
import type { SqliteDatabase, SqliteStatement, SqliteStoreConfig, SqliteValue } from "./sqlite-config.ts";
import { toStoreError } from "./sqlite-errors.ts";
import { applySqliteMigrations } from "./sqlite-migrations.ts";
import { JSON_FIELDS, decodeHistory, decodeJob } from "./sqlite-rows.ts";

/** The fields a commit may change, with their columns, in the order they appear in generated SQL. */
const COMMIT_COLUMNS = {
  status: "status",
  params: "params",
  metadata: "metadata",
  parentId: "parent_id",
  turns: "turns",
  pendingSeq: "pending_seq",
  historyLength: "history_length",
  exitStatus: "exit_status",
  error: "error",
  usage: "usage",
  state: "state",
} as const;

type CommitField = keyof typeof COMMIT_COLUMNS;

/** A write waiting for the next group commit. */
interface QueuedWrite {
  apply: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A {@link Store} in one SQLite file (or in memory), through `node:sqlite`.
 *
 * - **Opening and migrating are lazy**: the first call of any method opens the connection, applies the
 *   pragmas and runs the migrations. Calling {@link SqliteStore.migrate} first is optional and surfaces
 *   schema errors early (`openStore` does it).
 * - **Writes are group-committed.** `insertJob` and `commit` calls made in the same event-loop turn are
 *   queued and applied together, on the next `setImmediate`, in one `BEGIN IMMEDIATE … COMMIT` (one fsync).
 *   Each write runs in its own `SAVEPOINT`, so a failing write rolls back only itself and rejects only its
 *   own promise. A promise resolves once its transaction has committed. A `signal` that aborts while its
 *   write is still queued removes the write.
 * - **Corrupt rows never break reads.** `getJob`, `listJobs` and `getHistory` return every row; a JSON
 *   column that cannot be parsed (or a status this code does not know) becomes a property that throws
 *   {@link CorruptRecordError} naming the job and column when it is read. `id`, `version` and the other
 *   plain columns stay readable, so the caller can fail that one job, and a commit that replaces the field
 *   repairs it.
 * - **Engine errors carry their retry policy**: a `node:sqlite` failure is rethrown as a `StoreError` whose
 *   `isRetryable` is true for `SQLITE_BUSY`/`SQLITE_LOCKED` (another connection holds the lock).
 * - **node:sqlite is synchronous**: a statement, and waiting for another process's lock (`busyTimeoutMs`),
 *   blocks the event loop. Steps are short, and group commit keeps the number of transactions low.
 */
export class SqliteStore implements Store {
  readonly dialect = "sqlite";
  /** True for a file: SQLite's locks (WAL mode) let several processes commit to it. */
  readonly supportsMultipleProcesses: boolean;
  readonly #path: string;
  readonly #synchronous: string;
  readonly #busyTimeoutMs: number;
  readonly #databaseOption: SqliteStoreConfig["database"];
  #opening: Promise<SqliteDatabase> | undefined;
  #database: SqliteDatabase | undefined;
  #migrated = false;
  readonly #statements = new Map<string, SqliteStatement>();
  #queue: QueuedWrite[] = [];
  #flushScheduled = false;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor({ path, synchronous = "FULL", busyTimeoutMs = 5000, database }: SqliteStoreConfig) {
    if (typeof path !== "string" || path === "") throw new Error('SqliteStore: path must be ":memory:" or a file path');
    if (!SQLITE_SYNCHRONOUS_MODES.includes(synchronous)) {
      throw new Error(`SqliteStore: synchronous must be one of ${SQLITE_SYNCHRONOUS_MODES.join(", ")}, got ${String(synchronous)}`);
    }
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new Error(`SqliteStore: busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}`);
    }
    this.#path = path;
    this.#synchronous = synchronous;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#databaseOption = database;
    this.supportsMultipleProcesses = path !== ":memory:";
  }

  migrate(options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => undefined);
  }

  insertJob(job: JobRow, variables: VariableRow[], history: HistoryRow[], options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => this.#enqueue(() => this.#applyInsert(job, variables, history), options?.signal));
  }

  getJob(id: string, options?: StoreCallOptions): Promise<JobRow | null> {
    return this.#call(options, () => {
      const row = this.#statement("SELECT * FROM jobs WHERE id = ?").get(id);
      return row === undefined ? null : decodeJob(row);
    });
  }

  getVariables(id: string, options?: StoreCallOptions): Promise<VariableRow[]> {
    return this.#call(options, () =>
      this.#statement("SELECT name, blob, position FROM job_variables WHERE job_id = ? ORDER BY position, name")
        .all(id)
        .map((row) => ({ name: String(row["name"]), blob: String(row["blob"]), position: Number(row["position"]) })),
    );
  }

  getHistory(id: string, options?: StoreCallOptions & { fromSeq?: number }): Promise<HistoryRow[]> {
    return this.#call(options, () =>
      this.#statement("SELECT seq, kind, at, data FROM job_history WHERE job_id = ? AND seq >= ? ORDER BY seq")
        .all(id, options?.fromSeq ?? 0)
        .map((row) => decodeHistory(id, row)),
    );
  }

  commit(change: JobCommit, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => this.#enqueue(() => this.#applyCommit(change), options?.signal));
  }

  listJobs(filter: JobFilter = {}, options?: StoreCallOptions): Promise<JobRow[]> {
    return this.#call(options, () => {
      const { limit = 100, offset = 0 } = filter;
      if (!Number.isInteger(limit) || limit < 0) throw new Error(`listJobs: limit must be a non-negative integer, got ${limit}`);
      if (!Number.isInteger(offset) || offset < 0) throw new Error(`listJobs: offset must be a non-negative integer, got ${offset}`);
      const where: string[] = [];
      const parameters: SqliteValue[] = [];
      if (filter.status !== undefined) {
        const statuses = Array.isArray(filter.status) ? filter.status : [filter.status];
        if (statuses.length === 0) return [];
        where.push(`status IN (${statuses.map(() => "?").join(", ")})`);
        parameters.push(...statuses);
      }
      if (filter.role !== undefined) {
        where.push("role = ?");
        parameters.push(filter.role);
      }
      if (filter.parentId !== undefined) {
        where.push("parent_id = ?");
        parameters.push(filter.parentId);
      }
      const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
      // rowid breaks ties between jobs created in the same millisecond: the later insert is newer.
      const sql = `SELECT * FROM jobs${condition} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`;
      return this.#statement(sql).all(...parameters, limit, offset).map(decodeJob);
    });
  }

  /** Waits for every call already made (queued writes included), then closes the connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#inFlight]);
      this.#statements.clear();
      this.#database?.close();
      this.#database = undefined;
    })();
    return this.#closing;
  }

  /** Runs `body` once the store is open and migrated, and tracks it so that `close()` can wait for it. */
  #call<T>(options: StoreCallOptions | undefined, body: () => T | Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`store is closed (SqliteStore ${this.#path})`));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const promise = this.#ready()
      .then(() => {
        signal?.throwIfAborted();
        return body();
      })
      .catch((error: unknown) => {
        throw toStoreError(error);
      });
    this.#inFlight.add(promise);
    const forget = () => this.#inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  async #ready(): Promise<void> {
    if (this.#database === undefined) {
      this.#opening ??= this.#open();
      try {
        this.#database = await this.#opening;
      } catch (error) {
        this.#opening = undefined; // let a later call try again
        throw error;
      }
    }
    if (!this.#migrated) {
      applySqliteMigrations(this.#database, { path: this.#path });
      this.#migrated = true;
    }
  }

  /** Opens the connection and applies the pragmas; a failure names the path (`SQLite cannot open ./x.db: …`). */
  async #open(): Promise<SqliteDatabase> {
    const option = this.#databaseOption;
    const cannotOpen = (reason: string, cause: unknown) => new Error(`SQLite cannot open ${this.#path}: ${reason}`, { cause });
    let database: SqliteDatabase;
    if (option === undefined) {
      if (this.supportsMultipleProcesses) {
        const directory = dirname(this.#path);
        try {
          mkdirSync(directory, { recursive: true });
        } catch (error) {
          throw cannotOpen(`cannot create the directory ${directory} (${(error as Error).message})`, error);
        }
      }
      // Imported on first use so that loading STATEK never loads node:sqlite for an app that does not use it.
      const { DatabaseSync } = await import("node:sqlite");
      try {
        database = new DatabaseSync(this.#path);
      } catch (error) {
        throw cannotOpen((error as Error).message, error);
      }
    } else {
      database = typeof option === "function" ? await option() : option;
    }
    try {
      // busy_timeout first: switching to WAL itself needs a lock another process may hold.
      database.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
      if (this.supportsMultipleProcesses) database.exec("PRAGMA journal_mode = WAL");
      database.exec(`PRAGMA synchronous = ${this.#synchronous}`);
      database.exec("PRAGMA foreign_keys = ON");
    } catch (error) {
      database.close();
      throw cannotOpen((error as Error).message, error);
    }
    return database;
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#database!.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #enqueue(apply: () => void, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const write: QueuedWrite = { apply, resolve, reject };
      if (signal !== undefined) {
        const onAbort = () => {
          const index = this.#queue.indexOf(write);
          if (index === -1) return; // already applied: too late to abandon
          this.#queue.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        write.resolve = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        write.reject = (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        };
      }
      this.#queue.push(write);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Applies every queued write in one transaction, each inside its own savepoint. */
  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const database = this.#database!;
    const failures = new Map<QueuedWrite, unknown>();
    try {
      database.exec("BEGIN IMMEDIATE");
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    try {
      for (const write of batch) {
        database.exec("SAVEPOINT statek_write");
        try {
          write.apply();
          database.exec("RELEASE statek_write");
        } catch (error) {
          failures.set(write, error);
          database.exec("ROLLBACK TO statek_write");
          database.exec("RELEASE statek_write");
        }
      }
      database.exec("COMMIT");
    } catch (error) {
      // The transaction itself failed (I/O error, disk full, a savepoint that could not be rolled back):
      // nothing in it landed, so every write fails; those that failed on their own keep their own reason.
      try {
        database.exec("ROLLBACK");
      } catch {
        // SQLite has already rolled back.
      }
      for (const write of batch) write.reject(failures.has(write) ? failures.get(write) : error);
      return;
    }
    for (const write of batch) {
      if (failures.has(write)) write.reject(failures.get(write));
      else write.resolve();
    }
  }

  #applyInsert(job: JobRow, variables: VariableRow[], history: HistoryRow[]): void {
    checkStatus(job.id, job.status);
    checkHistory(job.id, 0, history);
    if (job.historyLength !== history.length) {
      throw new Error(`insertJob: job ${job.id} has historyLength ${job.historyLength} but ${history.length} history records`);
    }
    if (this.#statement("SELECT 1 FROM jobs WHERE id = ?").get(job.id) !== undefined) {
      throw new Error(`insertJob: a job with id ${job.id} already exists`);
    }
    this.#statement(
      `INSERT INTO jobs (id, role, status, params, metadata, parent_id, created_at, updated_at, version, turns,
        pending_seq, history_length, exit_status, error, usage, state) VALUES (${Array(16).fill("?").join(", ")})`,
    ).run(
      job.id, job.role, job.status, JSON.stringify(job.params), JSON.stringify(job.metadata), job.parentId,
      job.createdAt, job.updatedAt, job.version, job.turns, job.pendingSeq, job.historyLength, job.exitStatus,
      job.error, JSON.stringify(job.usage), JSON.stringify(job.state),
    );
    this.#putVariables(job.id, variables);
    this.#appendHistory(job.id, history);
  }

  #applyCommit(change: JobCommit): void {
    const { id, expectedVersion } = change;
    const fields: Partial<Record<CommitField, unknown>> = change.job ?? {};
    for (const [field, value] of Object.entries(fields)) {
      if (!Object.hasOwn(COMMIT_COLUMNS, field) && value !== undefined) {
        throw new Error(`commit to job ${id}: the field ${field} cannot be changed by a commit`);
      }
    }
    if (fields.status !== undefined) checkStatus(id, fields.status);
    const current = this.#statement("SELECT version, history_length FROM jobs WHERE id = ?").get(id);
    if (current === undefined) throw new NoSuchJobError({ jobId: id });
    const actualVersion = Number(current["version"]);
    if (actualVersion !== expectedVersion) throw new JobConflictError({ jobId: id, expectedVersion, actualVersion });

    const appended = change.appendHistory ?? [];
    const historyLength = Number(current["history_length"]) + appended.length;
    checkHistory(id, Number(current["history_length"]), appended);
    if (fields.historyLength !== undefined && fields.historyLength !== historyLength) {
      throw new Error(`commit to job ${id}: historyLength ${fields.historyLength} disagrees with the history, which will have ${historyLength} records`);
    }

    const assignments: string[] = [];
    const values: SqliteValue[] = [];
    for (const [field, column] of Object.entries(COMMIT_COLUMNS) as [CommitField, string][]) {
      const value = fields[field];
      if (value === undefined || field === "historyLength") continue;
      assignments.push(`${column} = ?`);
      values.push((JSON_FIELDS as readonly string[]).includes(field) ? JSON.stringify(value) : (value as SqliteValue));
    }
    assignments.push("version = ?", "updated_at = ?", "history_length = ?");
    values.push(actualVersion + 1, Date.now(), historyLength);
    this.#statement(`UPDATE jobs SET ${assignments.join(", ")} WHERE id = ?`).run(...values, id);

    const remove = this.#statement("DELETE FROM job_variables WHERE job_id = ? AND name = ?");
    for (const name of change.deleteVariables ?? []) remove.run(id, name);
    this.#putVariables(id, change.putVariables ?? []);
    this.#appendHistory(id, appended);
  }

  #putVariables(id: string, variables: VariableRow[]): void {
    const put = this.#statement(
      `INSERT INTO job_variables (job_id, name, blob, position) VALUES (?, ?, ?, ?)
        ON CONFLICT (job_id, name) DO UPDATE SET blob = excluded.blob, position = excluded.position`,
    );
    for (const variable of variables) put.run(id, variable.name, variable.blob, variable.position);
  }

  #appendHistory(id: string, records: HistoryRow[]): void {
    const append = this.#statement("INSERT INTO job_history (job_id, seq, kind, at, data) VALUES (?, ?, ?, ?, ?)");
    for (const record of records) append.run(id, record.seq, record.kind, record.at, JSON.stringify(record.data) ?? "null");
  }
}

/** Creates a {@link SqliteStore}. Nothing is opened until the first call. */
export function createSqliteStore(config: SqliteStoreConfig): SqliteStore {
  return new SqliteStore(config);
}

function checkStatus(id: string, status: unknown): void {
  if (!(JOB_STATUSES as readonly unknown[]).includes(status)) {
    throw new Error(`job ${id}: unknown status ${JSON.stringify(status)} (expected one of ${JOB_STATUSES.join(", ")})`);
  }
}

/** Appended records must continue the history densely: a gap or an overlap means the caller lost track. */
function checkHistory(id: string, start: number, records: HistoryRow[]): void {
  records.forEach((record, index) => {
    if (record.seq !== start + index) {
      throw new Error(`job ${id}: history record seq ${record.seq} does not continue the job's history (the next seq is ${start + index})`);
    }
  });
}
