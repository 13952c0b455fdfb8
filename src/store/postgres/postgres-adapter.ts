/**
 * @module
 * The PostgreSQL {@link StoreAdapter}: a `pg` pool, migrations under an advisory lock, transactions, the
 * database's clock and wake-up hints. The SQL is in `postgres-queries.ts`; every rule is above, in
 * `../store-core.ts`.
 *
 * Reads run on the pool, in parallel. Write transactions run one at a time per store, in the order the group
 * commit hands them over: a batch already holds every write of an event-loop turn, and running batches one
 * after the other keeps writes in call order (as the contract promises) and keeps a process from deadlocking
 * with itself. Other processes' transactions interleave with ours under row locks (`FOR UPDATE`), and claims
 * skip the rows they hold (`SKIP LOCKED`).
 */
import type { AdapterTransaction, EventRowQuery, JobPageQuery, JobQuery, StoreAdapter, StoredRow } from "../store-adapter.ts";
import type { FutureState } from "../durable-rows.ts";
import { readInteger } from "../store-rows.ts";
import { breaksConnection, toPostgresStoreError } from "./postgres-errors.ts";
import { applyPostgresMigrations } from "./postgres-migrations.ts";
import { CLOCK_SQL, PostgresReads, PostgresStatements, PostgresTransaction } from "./postgres-queries.ts";
import type { PostgresQueryable } from "./postgres-queries.ts";
import { PostgresWakeups, type ListenConnection, type WakeupMode } from "./postgres-wakeups.ts";
import { SerialQueue } from "../serial-queue.ts";

/** A pooled connection: queries, then back to the pool (`release(true)` destroys a broken one). */
export interface PooledConnection extends PostgresQueryable {
  release(destroy?: boolean | Error): void;
}

/** The slice of `pg`'s `Pool` the adapter calls. */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PooledConnection>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** What the adapter is built from (`postgres-store.ts` makes the pool and the listening connections). */
export interface PostgresAdapterOptions {
  pool: PostgresPool;
  connectListener: () => Promise<ListenConnection>;
  schema: string;
  /** The server, password masked: errors and logs name it. */
  where: string;
  pollIntervalMs: number;
  listenTestTimeoutMs: number;
  /** A write transaction idle this long is ended by the server (its process is frozen), releasing its row locks. */
  idleTransactionTimeoutMs: number;
  /** A write waiting this long for a row lock fails (retryably) rather than holding up the process's other writes. */
  lockTimeoutMs: number;
  log: (message: string) => void;
}

/** The PostgreSQL adapter of one store. */
export class PostgresAdapter implements StoreAdapter {
  readonly dialect = "postgres";
  readonly supportsMultipleProcesses = true;
  readonly #pool: PostgresPool;
  readonly #sql: PostgresStatements;
  readonly #reads: PostgresReads;
  readonly #where: string;
  readonly #wakeups: PostgresWakeups;
  /** The write transactions, one at a time. */
  readonly #writes = new SerialQueue();
  /** What opens a write transaction: BEGIN, its idle and lock-wait limits, and the clock its writes are stamped with. */
  readonly #begin: string;

  constructor(options: PostgresAdapterOptions) {
    this.#pool = options.pool;
    this.#where = options.where;
    this.#sql = new PostgresStatements(options.schema);
    // SET LOCAL rather than a session setting: it reaches the server through any pooler, and reads are left alone.
    this.#begin = [
      "BEGIN",
      `SET LOCAL idle_in_transaction_session_timeout = ${Math.trunc(options.idleTransactionTimeoutMs)}`,
      `SET LOCAL lock_timeout = ${Math.trunc(options.lockTimeoutMs)}`,
      `SELECT ${CLOCK_SQL} AS now`,
    ].join("; ");
    this.#reads = new PostgresReads(options.pool, this.#sql);
    // An idle pooled connection the server dropped: the pool discards it; the next call reconnects.
    this.#pool.on("error", () => undefined);
    this.#wakeups = new PostgresWakeups({
      notifier: options.pool, connect: options.connectListener, channel: `statek_${options.schema}`.slice(0, 63),
      pollIntervalMs: options.pollIntervalMs, listenTestTimeoutMs: options.listenTestTimeoutMs, log: options.log, where: options.where,
    });
  }

  /** How wake-up subscribers hear of changes right now (`listen`, or `poll` after a failed LISTEN self-test). */
  get wakeupMode(): WakeupMode {
    return this.#wakeups.mode;
  }

  async migrate(): Promise<void> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await applyPostgresMigrations(client, { schema: this.#sql.schema, where: this.#where });
    } catch (error) {
      broken = breaksConnection(error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  transaction<T>(work: (transaction: AdapterTransaction) => Promise<T>): Promise<T> {
    return this.#writes.run(() => this.#transaction(work));
  }

  async #transaction<T>(work: (transaction: AdapterTransaction) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      // One round trip: BEGIN, the limits, and the clock every write of the transaction is stamped with.
      const results: unknown = await client.query(this.#begin);
      const clock = Array.isArray(results) ? (results[3] as { rows: StoredRow[] }).rows[0]?.["now"] : undefined;
      const transaction = new PostgresTransaction(client, this.#sql, readInteger(clock));
      try {
        const result = await work(transaction);
        await transaction.flushEvents();
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true; // the connection is gone; the server rolls back on its own
        }
        throw error;
      }
    } catch (error) {
      if (breaksConnection(error)) broken = true;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Sends a coalesced wake-up hint to every process listening on this schema. */
  announceWakeup(): void {
    this.#wakeups.announce();
  }

  watchWakeups(listener: () => void): () => void {
    return this.#wakeups.watch(listener);
  }

  classifyError(error: unknown): unknown {
    return toPostgresStoreError(error, this.#where);
  }

  async close(): Promise<void> {
    await this.#writes.idle();
    await this.#wakeups.stop();
    await this.#pool.end();
  }

  now(): Promise<number> {
    return this.#reads.now();
  }
  readJob(id: string): Promise<StoredRow | undefined> {
    return this.#reads.readJob(id);
  }
  readJobs(query: JobQuery): Promise<StoredRow[]> {
    return this.#reads.readJobs(query);
  }
  readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    return this.#reads.readJobPage(query);
  }
  countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    return this.#reads.countJobsByStatus(query);
  }
  readLastEventId(): Promise<unknown> {
    return this.#reads.readLastEventId();
  }
  readVariables(jobId: string): Promise<StoredRow[]> {
    return this.#reads.readVariables(jobId);
  }

  readVariableVersions(jobId: string, upToTurn: number): Promise<StoredRow[]> {
    return this.#reads.readVariableVersions(jobId, upToTurn);
  }
  readHistory(jobId: string, fromSeq: number): Promise<StoredRow[]> {
    return this.#reads.readHistory(jobId, fromSeq);
  }
  readJournal(jobId: string): Promise<StoredRow[]> {
    return this.#reads.readJournal(jobId);
  }
  readFuture(key: string): Promise<StoredRow | undefined> {
    return this.#reads.readFuture(key);
  }
  readFutures(jobId: string, state?: FutureState): Promise<StoredRow[]> {
    return this.#reads.readFutures(jobId, state);
  }
  readWaitingFutures(kind: string, limit: number): Promise<StoredRow[]> {
    return this.#reads.readWaitingFutures(kind, limit);
  }
  readEvents(query: EventRowQuery): Promise<StoredRow[]> {
    return this.#reads.readEvents(query);
  }
  readNextClaim(roles?: readonly string[]): Promise<StoredRow> {
    return this.#reads.readNextClaim(roles);
  }
  readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.#reads.readLeaseOwners(now);
  }
  readAgents(roles?: readonly string[]): Promise<StoredRow[]> {
    return this.#reads.readAgents(roles);
  }
  countAgentEvents(roles?: readonly string[]): Promise<StoredRow[]> {
    return this.#reads.countAgentEvents(roles);
  }
  readAgentEvents(role: string, limit: number): Promise<StoredRow[]> {
    return this.#reads.readAgentEvents(role, limit);
  }
  readMemory(contexts: readonly string[]): Promise<StoredRow[]> {
    return this.#reads.readMemory(contexts);
  }
}
