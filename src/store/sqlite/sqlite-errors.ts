/**
 * @module
 * What a `node:sqlite` failure means for the caller: engine errors become {@link StoreError}s whose
 * `isRetryable` is worked out once, from SQLite's result code (busy and locked are transient: another
 * connection holds the lock), so the job runner never parses messages.
 */
import { StatekError } from "../../errors/statek-error.ts";
import { StoreError } from "../../errors/store-error.ts";

/** SQLite's primary result codes we name (the low byte of an extended code). */
const CODES: Readonly<Record<number, string>> = {
  1: "SQLITE_ERROR", 3: "SQLITE_PERM", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
  10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL",
  19: "SQLITE_CONSTRAINT", 26: "SQLITE_NOTADB",
};
/** Busy and locked: another connection holds a lock. Protocol: a lock race SQLite itself reports as transient. */
const TRANSIENT = new Set([5, 6, 15]);

/** A `node:sqlite` engine error as a {@link StoreError}; anything else (our own errors included) as it is. */
export function toStoreError(error: unknown): unknown {
  if (StatekError.isInstance(error) || !(error instanceof Error)) return error;
  const errcode = (error as { errcode?: unknown }).errcode;
  if (typeof errcode !== "number") return error;
  const primary = errcode & 0xff;
  return new StoreError({
    code: CODES[primary] ?? `SQLITE_${errcode}`,
    message: `SQLite: ${String((error as { errstr?: unknown }).errstr ?? error.message)}`,
    isRetryable: TRANSIENT.has(primary),
    cause: error,
  });
}
