/**
 * @module
 * How model calls are retried and timed out. A call is retried when its error says so (`isRetryable`: the AI
 * SDK sets it for 408, 409, 429 and 5xx answers) or when it timed out; the delay doubles from
 * `initialDelayMs`, unless the provider said how long to wait (`Retry-After`), which is honoured.
 */

/** Retry and timeout settings of model calls. */
export interface RetryPolicy {
  /** Retries after the first attempt. @default 2 */
  maxRetries: number;
  /** Delay before the first retry; doubled for each next one. @default 1000 */
  initialDelayMs: number;
  /**
   * Longest wait between attempts. A provider asking (by `Retry-After`) to wait longer than this is not retried
   * early: the call fails, saying so. @default 60000
   */
  maxDelayMs: number;
  /** Time one attempt may take before it is abandoned (and retried). @default 300000 */
  timeoutMs: number;
  /** Waits between attempts; tests pass one that records the delays. @default a timer */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The default {@link RetryPolicy}: 3 attempts, 1 s then 2 s apart, 5 minutes per attempt. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  timeoutMs: 300_000,
  sleep: sleepFor,
};

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The delay a provider asked for in its response headers, in milliseconds: `retry-after-ms` (OpenAI), else
 * `retry-after` as seconds or as an HTTP date. `undefined` when neither is present or readable.
 *
 * @example
 * ```ts
 * retryAfterMs({ "retry-after": "2" }); // 2000
 * ```
 */
export function retryAfterMs(headers: Readonly<Record<string, string>> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const milliseconds = lower.get("retry-after-ms");
  if (milliseconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds)) return Number(milliseconds);
  const value = lower.get("retry-after");
  if (value === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
