/**
 * @module
 * The base of every error STATEK throws on purpose. Errors carry data in public fields, set `name` explicitly
 * (agent code and the model see `<name>: <message>`), and are recognised with {@link StatekError.isInstance},
 * which keeps working when two copies of the package are installed.
 */

const MARKER = Symbol.for("statek.error");

/** Options common to every STATEK error. */
export interface StatekErrorOptions {
  /** The error's name, printed before its message. */
  name: string;
  /** A readable message naming what was wrong. */
  message: string;
  /** The error that caused this one, if any. */
  cause?: unknown;
  /** Whether repeating the same operation later may succeed (network, lock, rate limit). */
  isRetryable?: boolean;
}

/** Base class of STATEK's errors. */
export class StatekError extends Error {
  /** Whether repeating the operation later may succeed. */
  readonly isRetryable: boolean;
  readonly [MARKER] = true;

  constructor({ name, message, cause, isRetryable = false }: StatekErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
    this.isRetryable = isRetryable;
  }

  /** True for any STATEK error, from any copy of the package. */
  static isInstance(error: unknown): error is StatekError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}
