/**
 * @module
 * The SQLite {@link StoreAdapter}: one `node:sqlite` connection, its pragmas, migrations and transactions. The
 * SQL is in `sqlite-queries.ts`; every rule is above, in `../store-core.ts`.
 *
 * `node:sqlite` is synchronous and the connection is one: a transaction's statements and a read outside it
 * would interleave on the same connection (and the read would see uncommitted writes). So the adapter runs one
 * operation at a time — a read waits for a transaction in progress, which takes microseconds, since the core
 * awaits nothing but SQL inside one. `BEGIN IMMEDIATE` takes the database's write lock at the start of every
 * transaction, so transactions of several processes on one file never interleave either (that is what makes
 * claims exclusive across processes). With `synchronous = FULL` on a file it opened, the adapter fsyncs the WAL
 * itself, off the event loop, before a transaction's promise resolves (see `sqlite-wal-sync.ts`).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { AdapterTransaction, EventRowQuery, JobPageQuery, JobQuery, StoreAdapter, StoredRow } from "../store-adapter.ts";
import type { FutureState } from "../durable-rows.ts";
import type { SqliteDatabase, SqliteStoreConfig } from "./sqlite-config.ts";
import { toStoreError } from "./sqlite-errors.ts";
import { SerialQueue } from "../serial-queue.ts";
import { applySqliteMigrations } from "./sqlite-migrations.ts";
import { SqliteQueries } from "./sqlite-queries.ts";
import { WalSync } from "./sqlite-wal-sync.ts";
import { errorMessage } from "../../errors/error-text.ts";

/** The SQLite adapter of one store. */
export class SqliteAdapter implements StoreAdapter {
  readonly dialect = "sqlite";
  readonly supportsMultipleProcesses: boolean;
  readonly #path: string;
  readonly #synchronous: string;
  readonly #busyTimeoutMs: number;
  readonly #clock: () => number;
  readonly #pollIntervalMs: number;
  readonly #databaseOption: SqliteStoreConfig["database"];
  #database: SqliteDatabase | undefined;
  #queries: SqliteQueries | undefined;
  /** Every operation on the connection, one at a time; an idle queue lets a read run at once. */
  readonly #queue = new SerialQueue();
  /** Makes commits durable when SQLite is told not to fsync them itself (`FULL` on a file this adapter opened). */
  #walSync: WalSync | undefined;

  constructor(
    config: Required<Pick<SqliteStoreConfig, "path" | "synchronous" | "busyTimeoutMs" | "clock" | "pollIntervalMs">> & Pick<SqliteStoreConfig, "database">,
  ) {
    this.#path = config.path;
    this.#synchronous = config.synchronous;
    this.#busyTimeoutMs = config.busyTimeoutMs;
    this.#clock = config.clock;
    this.#pollIntervalMs = config.pollIntervalMs;
    this.#databaseOption = config.database;
    this.supportsMultipleProcesses = config.path !== ":memory:";
  }

  async migrate(): Promise<void> {
    const ticket = await this.#exclusive(async () => {
      const database = await this.#connection();
      applySqliteMigrations(database, { path: this.#path });
      return this.#walSync?.committed();
    });
    if (ticket !== undefined) await this.#walSync!.durable(ticket);
  }

  async transaction<T>(work: (transaction: AdapterTransaction) => Promise<T>): Promise<T> {
    // The connection is free again once COMMIT returns; the caller hears of the commit once it is durable.
    const { result, ticket } = await this.#exclusive(async () => {
      const database = await this.#connection();
      database.exec("BEGIN IMMEDIATE");
      try {
        const result = await work(this.#queries!);
        database.exec("COMMIT");
        return { result, ticket: this.#walSync?.committed() };
      } catch (error) {
        try {
          database.exec("ROLLBACK");
        } catch {
          // SQLite has already rolled back (it does on some errors); the original error is the one to report.
        }
        throw error;
      }
    });
    if (ticket !== undefined) await this.#walSync!.durable(ticket);
    return result;
  }

  classifyError(error: unknown): unknown {
    return toStoreError(error);
  }

  /**
   * Another process's commit changes the file's `PRAGMA data_version` (this connection's own do not: the core
   * hears those itself), so a cheap poll of it is the wake-up hint across processes. `:memory:` has no other
   * process.
   */
  watchWakeups(listener: () => void): () => void {
    if (!this.supportsMultipleProcesses) return () => undefined;
    let last: number | undefined;
    const poll = () => {
      this.#read((queries) => queries.dataVersion()).then((version) => {
        if (last !== undefined && version !== last) listener();
        last = version;
      }, () => undefined); // a busy or closed file: the next poll tries again
    };
    poll(); // the baseline, now: a commit made before the first tick must count as a change
    const timer = setInterval(poll, this.#pollIntervalMs); // not unref'd: a subscription keeps the process alive until it stops, as a socket would
    return () => clearInterval(timer);
  }

  close(): Promise<void> {
    return this.#exclusive(async () => {
      await this.#walSync?.close();
      this.#walSync = undefined;
      this.#queries?.clear();
      this.#database?.close();
      this.#database = undefined;
      this.#queries = undefined;
    });
  }

  now(): Promise<number> {
    return Promise.resolve(this.#clock());
  }

  readJob(id: string): Promise<StoredRow | undefined> {
    return this.#read((queries) => queries.readJob(id));
  }

  readJobs(query: JobQuery): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readJobs(query));
  }

  readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readJobPage(query));
  }

  countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    return this.#read((queries) => queries.countJobsByStatus(query));
  }

  readLastEventId(): Promise<unknown> {
    return this.#read((queries) => queries.readLastEventId());
  }

  readVariables(jobId: string): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readVariables(jobId));
  }

  readVariableVersions(jobId: string, upToTurn: number): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readVariableVersions(jobId, upToTurn));
  }

  readHistory(jobId: string, fromSeq: number): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readHistory(jobId, fromSeq));
  }

  readJournal(jobId: string): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readJournal(jobId));
  }

  readFuture(key: string): Promise<StoredRow | undefined> {
    return this.#read((queries) => queries.readFuture(key));
  }

  readFutures(jobId: string, state?: FutureState): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readFutures(jobId, state));
  }

  readWaitingFutures(kind: string, limit: number): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readWaitingFutures(kind, limit));
  }

  readEvents(query: EventRowQuery): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readEvents(query));
  }

  readNextClaim(roles?: readonly string[]): Promise<StoredRow> {
    return this.#read((queries) => queries.readNextClaim(roles));
  }

  readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readLeaseOwners(now));
  }

  readAgents(roles?: readonly string[]): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readAgents(roles));
  }

  countAgentEvents(roles?: readonly string[]): Promise<StoredRow[]> {
    return this.#read((queries) => queries.countAgentEvents(roles));
  }

  readAgentEvents(role: string, limit: number): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readAgentEvents(role, limit));
  }

  readMemory(contexts: readonly string[]): Promise<StoredRow[]> {
    return this.#read((queries) => queries.readMemory(contexts));
  }

  /** Runs a read at once when nothing else is in progress, else after it. */
  #read<T>(body: (queries: SqliteQueries) => Promise<T>): Promise<T> {
    if (this.#queue.pending === 0 && this.#queries !== undefined) return body(this.#queries);
    return this.#exclusive(async () => {
      await this.#connection();
      return body(this.#queries!);
    });
  }

  /** Runs `body` after every operation queued before it, alone on the connection. */
  #exclusive<T>(body: () => Promise<T>): Promise<T> {
    return this.#queue.run(body);
  }

  async #connection(): Promise<SqliteDatabase> {
    if (this.#database === undefined) {
      this.#database = await this.#open();
      this.#queries = new SqliteQueries(this.#database, this.#clock);
    }
    return this.#database;
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
          throw cannotOpen(`cannot create the directory ${directory} (${errorMessage(error)})`, error);
        }
      }
      // Imported on first use so that loading STATEK never loads node:sqlite for an app that does not use it.
      const { DatabaseSync } = await import("node:sqlite");
      try {
        database = new DatabaseSync(this.#path);
      } catch (error) {
        throw cannotOpen(errorMessage(error), error);
      }
    } else {
      database = typeof option === "function" ? await option() : option;
    }
    try {
      // busy_timeout first: switching to WAL itself needs a lock another process may hold.
      database.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
      if (this.supportsMultipleProcesses) database.exec("PRAGMA journal_mode = WAL");
      // FULL on a file opened here, in WAL mode (a file system may refuse it): SQLite writes the WAL at COMMIT,
      // the adapter fsyncs it off the event loop.
      const deferSync = option === undefined && this.supportsMultipleProcesses && this.#synchronous === "FULL" &&
        String(database.prepare("PRAGMA journal_mode").get()?.["journal_mode"]).toLowerCase() === "wal";
      database.exec(`PRAGMA synchronous = ${deferSync ? "NORMAL" : this.#synchronous}`);
      this.#walSync = deferSync ? new WalSync(`${this.#path}-wal`) : undefined;
      database.exec("PRAGMA foreign_keys = ON");
    } catch (error) {
      database.close();
      throw cannotOpen(errorMessage(error), error);
    }
    return database;
  }
}
