/**
 * @module
 * One model call under a {@link RetryPolicy}: each attempt gets its own timeout, retryable failures are
 * retried after a backoff that honours `Retry-After`, and the caller's signal cancels everything at once.
 */
import { ModelCallError } from "../errors/model-call-error.ts";
import { DEFAULT_RETRY_POLICY, retryAfterMs, type RetryPolicy } from "./retry-policy.ts";

/** The fields of an AI SDK `APICallError` the retry decision reads (duck-typed: any copy of the package). */
interface RetryableError {
  isRetryable?: unknown;
  responseHeaders?: Record<string, string>;
}

/** A failed attempt, as {@link CallHooks.onAttemptFailed} hears of it. */
export interface FailedAttempt {
  /** 1-based number of the attempt. */
  attempt: number;
  /** `<ErrorName>: <message>` of what went wrong (a timeout reads `TimeoutError: …`). */
  error: string;
  /** Whether a further attempt follows. */
  retried: boolean;
  /** Whether the attempt was abandoned at `timeoutMs`. */
  timedOut: boolean;
  /** What the attempt threw. */
  cause: unknown;
}

/** What the caller of {@link callWithRetries} hears about its attempts. */
export interface CallHooks {
  /** Called once for every attempt that fails (not for one the caller's signal cancelled). */
  onAttemptFailed?(failure: FailedAttempt): void;
  /** How a failed attempt's error reads (`<ErrorName>: <message>` when not given). */
  describeError?(error: unknown): string;
  /**
   * Asked before each retry, after `onAttemptFailed`: a reason not to retry (a spending limit the failed
   * attempts reached) ends the call with a `ModelCallError` that gives it.
   */
  stopBeforeRetry?(failure: unknown): string | undefined;
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not retryable, or runs out of retries.
 *
 * @param attempt - One try, given its signal (the timeout and the caller's cancellation; it must honour it) and
 *   its 1-based number.
 * @returns What the successful attempt returned.
 * @throws {ModelCallError} When it fails for good; `cause` is the last attempt's error.
 * @throws The caller's abort reason when `signal` is aborted (never wrapped, never retried).
 *
 * @example
 * ```ts
 * const reply = await callWithRetries((signal) => generateReply(model, { ...request, abortSignal: signal }), policy, undefined, {
 *   onAttemptFailed: ({ attempt, error }) => console.warn(`attempt ${attempt}: ${error}`),
 * });
 * ```
 */
export async function callWithRetries<T>(
  attempt: (signal: AbortSignal, attemptNumber: number) => Promise<T>,
  policy: Partial<RetryPolicy> = {},
  signal?: AbortSignal,
  hooks: CallHooks = {},
): Promise<T> {
  const settings = { ...DEFAULT_RETRY_POLICY, ...policy };
  for (let attempts = 1; ; attempts++) {
    signal?.throwIfAborted();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error("timeout")), settings.timeoutMs);
    const attemptSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    let failure: unknown;
    let timedOut = false;
    try {
      return await attempt(attemptSignal, attempts);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      timedOut = timeout.signal.aborted;
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    // A timeout is described like any failure, so it names the model too (`describeError`).
    const lastError = (hooks.describeError ?? describe)(timedOut ? timeoutError(settings.timeoutMs) : failure);
    const retryable = timedOut || (failure as RetryableError | null)?.isRetryable === true;
    const asked = timedOut ? undefined : retryAfterMs((failure as RetryableError | null)?.responseHeaders);
    const tooLong = asked !== undefined && asked > settings.maxDelayMs;
    let retried = retryable && attempts <= settings.maxRetries && !tooLong;
    // A stop reason is known only once the failed attempt's spending is counted, which onAttemptFailed does;
    // the record it writes then says "retried" for an attempt not retried, so it is asked first.
    const stop = retried ? hooks.stopBeforeRetry?.(failure) : undefined;
    if (stop !== undefined) retried = false;
    hooks.onAttemptFailed?.({ attempt: attempts, error: lastError, retried, timedOut, cause: failure });
    if (stop !== undefined) throw new ModelCallError({ attempts, lastError, cause: failure, note: stop });
    if (!retryable || attempts > settings.maxRetries) {
      throw new ModelCallError({ attempts, lastError, cause: failure });
    }
    if (tooLong) {
      throw new ModelCallError({
        attempts, lastError, cause: failure,
        note: `the provider asked to retry after ${Math.ceil(asked / 1000)} s, longer than maxDelayMs ${settings.maxDelayMs}`,
      });
    }
    const backoff = Math.min(settings.initialDelayMs * 2 ** (attempts - 1), settings.maxDelayMs);
    await settings.sleep(asked ?? backoff, signal);
  }
}

/** What a timed-out attempt failed with: the attempt's own error is only the abort it caused. */
function timeoutError(timeoutMs: number): Error {
  const error = new Error(`the model did not answer within ${timeoutMs} ms`);
  error.name = "TimeoutError";
  return error;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${String(error)}`;
}
