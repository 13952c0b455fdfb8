/**
 * @module
 * Configuration of the SQLite store, and the slice of `node:sqlite` it relies on.
 */

/** The values `PRAGMA synchronous` accepts, weakest first. */
export const SQLITE_SYNCHRONOUS_MODES = ["OFF", "NORMAL", "FULL", "EXTRA"] as const;

/** One of {@link SQLITE_SYNCHRONOUS_MODES}. */
export type SqliteSynchronousMode = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

/** A value SQLite binds to a `?` parameter or returns from a column. */
export type SqliteValue = null | number | bigint | string | Uint8Array;

/** The slice of `node:sqlite`'s `StatementSync` the store calls. */
export interface SqliteStatement {
  run(...parameters: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...parameters: SqliteValue[]): Record<string, SqliteValue> | undefined;
  all(...parameters: SqliteValue[]): Record<string, SqliteValue>[];
}

/**
 * The slice of `node:sqlite`'s `DatabaseSync` the store calls. Declared here rather than imported so that a
 * wrapped or fake connection (tests, instrumentation) only has to provide these three methods.
 */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** How to open a {@link SqliteStore}. */
export interface SqliteStoreConfig {
  /**
   * `":memory:"` for a private in-memory database, or a file path. Missing parent directories are created.
   * When `database` is given, `path` only tells the store whether it is a file (WAL, several processes).
   * @example "./statek-data/statek.db"
   */
  path: string;
  /**
   * `PRAGMA synchronous`. `FULL` makes every committed step survive power loss; `NORMAL` in WAL mode may
   * lose the last commits on power loss (never on a process crash) and fsyncs less.
   * @default "FULL"
   */
  synchronous?: SqliteSynchronousMode;
  /**
   * How long a write waits for another process's transaction before failing with `SQLITE_BUSY`. The wait
   * blocks the event loop (node:sqlite is synchronous), so keep it short.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * The store's clock, epoch milliseconds: lease expiry, due timers and the times the store stamps (`updatedAt`,
   * settlements, events) read it, never a worker's own. Every process sharing a file should use the same clock.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * How often a wake-up subscription (a worker, `statek.events()`, the UI) reads `PRAGMA data_version`, which
   * changes when another process has committed to the file: the longest a commit of another process waits to
   * be heard. One statement that reads no table. Not used for `:memory:`, which no other process can reach.
   * @default 25
   */
  pollIntervalMs?: number;
  /**
   * An open connection, or a factory called once on first use. The store applies its pragmas to it and
   * closes it in `close()`. Default: `new DatabaseSync(path)`.
   */
  database?: SqliteDatabase | (() => SqliteDatabase | Promise<SqliteDatabase>);
}
