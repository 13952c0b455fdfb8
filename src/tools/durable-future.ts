/**
 * @module
 * A durable future a tool returns (`ctx.future(key, { timeoutMs })`): the application
 * settles it later — from a webhook, another process, a human — with `statek.resolveFuture(key, value)` or
 * `statek.rejectFuture(key, error)`. Agent code that awaits the tool's result waits for the settlement; if
 * nothing else is pending, its job suspends meanwhile. The tool's error handler is registered when the future
 * first resolves, with the resolved value as its context (the seed's rule).
 */

/** What `ctx.future` returns: a marker the job runner turns into a durable wait. */
export interface DurableFuture {
  readonly kind: "statek.future";
  /** The application's key for it: what `resolveFuture(key, …)` names. Unique across jobs. */
  readonly key: string;
  /** After this long it rejects with a `TimeoutError` (unless settled first). */
  readonly timeoutMs: number | undefined;
  /** The error handler (by name) to register when it resolves: the tool's, set by the tool call. */
  errorHandler: string | undefined;
}

/** Options of `ctx.future`. */
export interface FutureOptions {
  /** Rejects with `TimeoutError` after this many milliseconds unless settled first. */
  timeoutMs?: number;
}

/** Makes the marker `ctx.future(key, options)` returns; throws a `TypeError` naming what is wrong. */
export function durableFuture(key: unknown, options: FutureOptions = {}): DurableFuture {
  if (typeof key !== "string" || !key.trim() || key.length > 500) throw new TypeError("ctx.future(key): key must be a non-empty string of at most 500 characters");
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError("ctx.future(key, { timeoutMs }): timeoutMs must be a positive number of milliseconds");
  }
  return {
    kind: "statek.future", key, timeoutMs, errorHandler: undefined,
    // How the call's record shows it: what it waits for.
    [Symbol.for("statek.llmRepr")]: () => `a durable future (${key})`,
  } as DurableFuture;
}

/** True for a value made by {@link durableFuture}. */
export function isDurableFuture(value: unknown): value is DurableFuture {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.future";
}

/** The host-internal reply that turns a host call into a durable wait (never sent to the guest). */
export function futureReply(future: DurableFuture): string {
  return "f" + JSON.stringify({ key: future.key, ...(future.timeoutMs !== undefined ? { timeoutMs: future.timeoutMs } : {}), ...(future.errorHandler ? { errorHandler: future.errorHandler } : {}) });
}
