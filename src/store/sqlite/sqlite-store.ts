/**
 * @module
 * The SQLite {@link Store}, on `node:sqlite`: the store core (`../store-core.ts`, every rule of the contract)
 * over the SQLite adapter (`sqlite-adapter.ts`, SQL only). The contract's documentation is in `../store.ts`;
 * this file documents only what is particular to SQLite.
 */
import { StoreCore } from "../store-core.ts";
import { SqliteAdapter } from "./sqlite-adapter.ts";
import { SQLITE_SYNCHRONOUS_MODES } from "./sqlite-config.ts";
import type { SqliteStoreConfig } from "./sqlite-config.ts";

/**
 * A {@link Store} in one SQLite file (or in memory), through `node:sqlite`.
 *
 * - **Opening and migrating are lazy**: the first call of any method opens the connection, applies the
 *   pragmas (WAL for files, `synchronous`, the busy timeout, foreign keys) and runs the migrations under
 *   SQLite's write lock. Calling {@link SqliteStore.migrate} first is optional and surfaces schema errors early
 *   (`openStore` does it).
 * - **Writes are group-committed**: writes made in the same event-loop turn (or while the batch before them
 *   commits) are applied together, in one `BEGIN IMMEDIATE … COMMIT` (one fsync); a failing write undoes only
 *   itself (see `../group-commit.ts`). A `signal` that
 *   aborts while its write is still queued removes the write.
 * - **Leases use this process's clock** (`clock`, default `Date.now`), and claims are exclusive across
 *   processes because every transaction takes the file's write lock at its start.
 * - **Engine errors carry their retry policy**: a `node:sqlite` failure is rethrown as a `StoreError` whose
 *   `isRetryable` is true for `SQLITE_BUSY`/`SQLITE_LOCKED` (another connection holds the lock).
 * - **node:sqlite is synchronous**: a statement, and waiting for another process's lock (`busyTimeoutMs`),
 *   blocks the event loop. Steps are short, and group commit keeps the number of transactions low.
 */
export class SqliteStore extends StoreCore {
  readonly #path: string;

  constructor({ path, synchronous = "FULL", busyTimeoutMs = 5000, clock = Date.now, pollIntervalMs = 25, database }: SqliteStoreConfig) {
    if (typeof path !== "string" || path === "") throw new Error('SqliteStore: path must be ":memory:" or a file path');
    if (!SQLITE_SYNCHRONOUS_MODES.includes(synchronous)) {
      throw new Error(`SqliteStore: synchronous must be one of ${SQLITE_SYNCHRONOUS_MODES.join(", ")}, got ${String(synchronous)}`);
    }
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new Error(`SqliteStore: busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}`);
    }
    if (typeof clock !== "function") throw new Error("SqliteStore: clock must be a function returning epoch milliseconds");
    if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 1) {
      throw new Error(`SqliteStore: pollIntervalMs must be an integer of at least 1, got ${String(pollIntervalMs)}`);
    }
    super(new SqliteAdapter({ path, synchronous, busyTimeoutMs, clock, pollIntervalMs, ...(database === undefined ? {} : { database }) }));
    this.#path = path;
  }

  protected override get storeName(): string {
    return `SqliteStore ${this.#path}`;
  }
}

/** Creates a {@link SqliteStore}. Nothing is opened until the first call. */
export function createSqliteStore(config: SqliteStoreConfig): SqliteStore {
  return new SqliteStore(config);
}
