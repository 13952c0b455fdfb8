import { StatekError } from "./statek-error.ts";

/**
 * The storage engine failed an operation. `isRetryable` is true for transient failures — the database is
 * busy or locked by another connection, a connection was lost — which the job runner retries and never
 * records as the job's failure; other failures (disk full, a damaged file) are not.
 */
export class StoreError extends StatekError {
  /** The engine's code, e.g. `SQLITE_BUSY`. */
  readonly code: string;

  constructor({ code, message, isRetryable, cause }: { code: string; message: string; isRetryable: boolean; cause?: unknown }) {
    super({ name: "StoreError", message: `${message} (${code})`, isRetryable, cause });
    this.code = code;
  }

  /** True for a store failure that may succeed when repeated (from any copy of the package). */
  static isTransient(error: unknown): boolean {
    return StatekError.isInstance(error) && error.name === "StoreError" && error.isRetryable;
  }
}
