/**
 * @module
 * Retrying store calls that failed transiently: a busy or locked database is waited out
 * with exponential backoff, a bounded number of times. A transient failure is never recorded as the job's
 * failure: when the retries run out, the step rejects and the job stays as it was, to be stepped again.
 */
import { StoreError } from "../errors/store-error.ts";

/** How store calls are retried. */
export interface StoreRetryPolicy {
  /** Attempts in all, the first included. @default 6 */
  attempts: number;
  /** Wait before the first retry; each next wait doubles. @default 20 */
  initialDelayMs: number;
  /** Longest single wait. @default 1000 */
  maxDelayMs: number;
}

/** The default policy: about 1.3 s of waiting in all before giving up. */
export const DEFAULT_STORE_RETRIES: Readonly<StoreRetryPolicy> = Object.freeze({ attempts: 8, initialDelayMs: 20, maxDelayMs: 1_000 });

/** Runs `operation`, repeating it after a transient store failure (`StoreError.isTransient`). */
export async function withStoreRetries<T>(
  operation: () => Promise<T>, options: { policy?: StoreRetryPolicy; signal?: AbortSignal } = {},
): Promise<T> {
  const policy = options.policy ?? DEFAULT_STORE_RETRIES;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= policy.attempts || !StoreError.isTransient(error)) throw error;
      // Jittered, so that writers retrying together do not meet the same lock again and again.
      await pause(Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs) * (0.5 + Math.random()), options.signal);
    }
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/** A step's store call, retried with the default policy while it fails transiently (and the step is not aborted). */
export function retried<T>(env: { signal?: AbortSignal }, operation: () => Promise<T>): Promise<T> {
  return withStoreRetries(operation, env.signal ? { signal: env.signal } : {});
}
