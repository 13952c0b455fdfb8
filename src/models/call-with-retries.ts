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

/**
 * Runs `attempt` until it succeeds, fails with an error that is not retryable, or runs out of retries.
 *
 * @param attempt - One try; it must honour the signal it is given (the timeout and the caller's cancellation).
 * @returns What the successful attempt returned.
 * @throws {ModelCallError} When it fails for good; `cause` is the last attempt's error.
 * @throws The caller's abort reason when `signal` is aborted (never wrapped, never retried).
 *
 * @example
 * ```ts
 * const reply = await callWithRetries((signal) => generateReply(model, { ...request, abortSignal: signal }));
 * ```
 */
export async function callWithRetries<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  policy: Partial<RetryPolicy> = {},
  signal?: AbortSignal,
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
      return await attempt(attemptSignal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      timedOut = timeout.signal.aborted;
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    const lastError = timedOut
      ? `TimeoutError: the model did not answer within ${settings.timeoutMs} ms`
      : describe(failure);
    const retryable = timedOut || (failure as RetryableError | null)?.isRetryable === true;
    if (!retryable || attempts > settings.maxRetries) {
      throw new ModelCallError({ attempts, lastError, cause: failure });
    }
    const asked = timedOut ? undefined : retryAfterMs((failure as RetryableError).responseHeaders);
    if (asked !== undefined && asked > settings.maxDelayMs) {
      throw new ModelCallError({
        attempts, lastError, cause: failure,
        note: `the provider asked to retry after ${Math.ceil(asked / 1000)} s, longer than maxDelayMs ${settings.maxDelayMs}`,
      });
    }
    const backoff = Math.min(settings.initialDelayMs * 2 ** (attempts - 1), settings.maxDelayMs);
    await settings.sleep(asked ?? backoff, signal);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${String(error)}`;
}
