/**
 * @module
 * Configuration of the PostgreSQL store, and the one rule for showing its connection string: the password is
 * never printed (errors and logs show {@link maskConnectionString}'s form).
 */

/** How to open a {@link PostgresStore}. */
export interface PostgresStoreConfig {
  /**
   * The server, as a libpq-style URL. Two query parameters are the store's, not the driver's: `schema` and
   * `pool_size` (the options below win over them).
   * @example "postgres://statek:secret@db.internal:5432/app?schema=statek"
   */
  connectionString: string;
  /**
   * Where the wake-up listener connects, when it must differ from `connectionString`: behind a
   * transaction-mode pooler (PgBouncer), give the server itself or a session-mode pool here, since `LISTEN`
   * needs a session of its own.
   * @default connectionString
   */
  listenConnectionString?: string;
  /**
   * The schema holding the store's tables (created when missing). Several stores can share a database in
   * different schemas. A lower-case SQL identifier.
   * @default "statek"
   */
  schema?: string;
  /**
   * Connections in the pool (reads run in parallel on them; writes are group-committed, one transaction at a
   * time per store). A subscription to wake-ups holds one more connection of its own.
   * @default 10
   */
  poolSize?: number;
  /**
   * How often a wake-up subscription (a worker, `statek.events()`, the UI) is called even when no notification
   * came: a safety net for a lost notification, and what an idle worker costs the database (one query each
   * time). While `LISTEN` cannot be used (its self-test failed, or its connection is lost), subscriptions are
   * called every `pollIntervalMs / 20` instead.
   * @default 5000
   */
  pollIntervalMs?: number;
  /**
   * How long the LISTEN self-test waits for its own notification before falling back to polling.
   * @default 2000
   */
  listenTestTimeoutMs?: number;
  /**
   * How long one of the store's write transactions may sit idle before the server ends its session. A worker
   * frozen in the middle of a commit (`SIGSTOP`, a paused container or VM, a debugger) would otherwise keep the
   * rows it locked for as long as it stays frozen, and other workers could not take its jobs over when its leases
   * run out. A healthy transaction is never idle for more than a few milliseconds; a worker that wakes after its
   * session was ended gets a retryable error, and its fenced writes are refused if its jobs moved.
   * @default 10000
   */
  idleTransactionTimeoutMs?: number;
  /**
   * How long a write waits for a row another session has locked before it fails with a retryable error. The
   * store's writes share one transaction at a time (a group commit), so a write stuck behind a lock held by a
   * frozen worker would hold up every other write of the process — its lease renewals too, and its leases would
   * run out. Past this limit the stuck write alone fails (its caller retries it) and the others commit. Rows
   * are locked for milliseconds by healthy workers; keep it well under the workers' `leaseMs`.
   * @default 1000
   */
  lockTimeoutMs?: number;
  /**
   * Where the store reports what an operator should know (the LISTEN self-test failed, the wake-up
   * connection was lost). Messages never hold the password.
   * @default console.warn
   */
  log?: (message: string) => void;
}

/** A schema name the store accepts: a plain lower-case SQL identifier (it is quoted all the same). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL parameters that configure the store rather than the driver. */
const STORE_PARAMETERS = { schema: "schema", pool_size: "poolSize" } as const;

/**
 * The connection string with its password replaced by `***`, for errors and logs. A string that is not a URL
 * is shown as `postgres://…` only (it might hold a password anywhere).
 */
export function maskConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== "") url.password = "***";
    for (const name of ["password", "sslpassword"]) if (url.searchParams.has(name)) url.searchParams.set(name, "***");
    return url.toString();
  } catch {
    return "postgres://…";
  }
}

/**
 * Splits the store's own parameters (`schema`, `pool_size`) off a connection string; the rest goes to the
 * driver as it was.
 */
export function splitConnectionString(connectionString: string): { driverUrl: string; schema?: string; poolSize?: number } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new Error(`PostgresStore: the connection string is not a URL (expected postgres://user:password@host:port/database): ${maskConnectionString(connectionString)}`);
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) {
    throw new Error(`PostgresStore: expected a postgres:// or postgresql:// URL, got ${maskConnectionString(connectionString)}`);
  }
  const result: { driverUrl: string; schema?: string; poolSize?: number } = { driverUrl: connectionString };
  let changed = false;
  for (const [parameter, field] of Object.entries(STORE_PARAMETERS)) {
    const value = url.searchParams.get(parameter);
    if (value === null) continue;
    url.searchParams.delete(parameter);
    changed = true;
    if (field === "schema") result.schema = value;
    else {
      if (!/^\d+$/.test(value)) throw new Error(`PostgresStore: pool_size must be a positive integer, got ${JSON.stringify(value)}`);
      result.poolSize = Number(value);
    }
  }
  if (changed) result.driverUrl = url.toString();
  return result;
}
