/**
 * @module
 * What a `pg` failure means for the caller: engine errors become {@link StoreError}s whose `isRetryable` is
 * worked out once, from PostgreSQL's SQLSTATE or the socket's error code, so the job runner never parses
 * messages. Transient: a lost or refused connection, a server shutting down or failing over, a serialization
 * failure, a deadlock, too many connections. Messages never hold the connection string's password (the driver
 * does not put it in its errors; `where` is the masked URL).
 */
import { StatekError } from "../../errors/statek-error.ts";
import { StoreError } from "../../errors/store-error.ts";

/** SQLSTATE classes and codes that a repeated call may get past. */
const TRANSIENT_CLASSES = new Set(["08"]); // connection exception
const TRANSIENT_CODES = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "55P03", // lock_not_available
  "57P01", // admin_shutdown (pg_terminate_backend, a fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, a standby being promoted)
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
  "25006", // read_only_sql_transaction (a failover left us on a standby for now)
  "25P03", // idle_in_transaction_session_timeout (the process was frozen mid-transaction; its session is gone)
  "57P05", // idle_session_timeout (a server-side limit ended an idle pooled connection)
]);
/** Server errors after which the session is gone. */
const SESSION_ENDED_CODES = new Set(["25P03"]);
/** Socket errors: the connection broke or could not be made. */
const TRANSIENT_SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/** What `pg` says when the server closed the connection under it (it has no code for these). */
const CONNECTION_LOST_MESSAGES = [/Connection terminated/i, /connection (is )?(closed|ended)/i, /Client has encountered a connection error/i, /timeout exceeded when trying to connect/i];

/**
 * The SQLSTATE of a server error (`pg`'s `DatabaseError` carries it in `code`), or undefined. A socket error's
 * code may look like one (`EPIPE`): it carries the failed system call.
 */
function sqlState(error: Error): string | undefined {
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  return typeof code === "string" && syscall === undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True when repeating the call that failed with `error` may succeed. */
export function isTransientPostgresError(error: Error): boolean {
  const state = sqlState(error);
  if (state !== undefined) return TRANSIENT_CODES.has(state) || TRANSIENT_CLASSES.has(state.slice(0, 2));
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && TRANSIENT_SOCKET_CODES.has(code)) return true;
  return CONNECTION_LOST_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** True for an error that leaves its connection unusable (it must not go back to the pool). */
export function breaksConnection(error: unknown): boolean {
  if (!(error instanceof Error) || StatekError.isInstance(error)) return false;
  const state = sqlState(error);
  if (state !== undefined) return state.startsWith("08") || state.startsWith("57P") || SESSION_ENDED_CODES.has(state);
  return isTransientPostgresError(error);
}

/**
 * A `pg` or socket failure as a {@link StoreError} (`where` names the server, password masked); anything else —
 * our own errors included — as it is.
 */
export function toPostgresStoreError(error: unknown, where: string): unknown {
  if (StatekError.isInstance(error) || !(error instanceof Error)) return error;
  const state = sqlState(error);
  const socketCode = (error as { code?: unknown }).code;
  const isEngineError = state !== undefined || typeof socketCode === "string" || CONNECTION_LOST_MESSAGES.some((pattern) => pattern.test(error.message));
  if (!isEngineError) return error;
  const transient = isTransientPostgresError(error);
  const lost = transient && (state === undefined || state.startsWith("08") || state.startsWith("57P") || SESSION_ENDED_CODES.has(state));
  const message = lost
    ? `PostgreSQL at ${where}: the connection was lost or could not be made (${error.message})`
    : state === "22021"
      ? `PostgreSQL at ${where}: ${error.message} (PostgreSQL text cannot hold the character U+0000)`
      : `PostgreSQL at ${where}: ${error.message}`;
  return new StoreError({ code: state ?? (typeof socketCode === "string" ? socketCode : "PG_CONNECTION_LOST"), message, isRetryable: transient, cause: error });
}
