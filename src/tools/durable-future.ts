/**
 * @module
 * A durable future a tool returns (`ctx.future(key, { timeoutMs })`): the application
 * settles it later — from a webhook, another process, a human — with `statek.resolveFuture(key, value)` or
 * `statek.rejectFuture(key, error)`. Agent code that awaits the tool's result waits for the settlement; if
 * nothing else is pending, its job suspends meanwhile. The tool's error handler is registered when the future
 * first resolves, with the resolved value as its context (the seed's rule). A tool with `check(args)` makes a
 * *checked* future: no one needs to settle it, a worker asks the tool on schedule while the job waits.
 */
import type { ReadableJson } from "./readable-json.ts";

/** What `ctx.future` returns: a marker the job runner turns into a durable wait. */
export interface DurableFuture {
  readonly kind: "statek.future";
  /** The application's key for it: what `resolveFuture(key, …)` names. Unique across jobs. */
  readonly key: string;
  /** After this long it rejects with a `TimeoutError` (unless settled first). */
  readonly timeoutMs: number | undefined;
  /** The error handler (by name) to register when it resolves: the tool's, set by the tool call. */
  errorHandler: string | undefined;
  /** How often a worker calls the tool's `check(args)` while the job waits (a checked future), else `undefined`. */
  readonly everyMs: number | undefined;
  /** The tool and arguments a worker checks it with: set by the call of a tool that has `check`. */
  check: FutureCheck | undefined;
}

/** What a checked future is checked with: the tool's name and the call's arguments as JSON. */
export interface FutureCheck {
  tool: string;
  args: { [name: string]: ReadableJson };
}

/** Options of `ctx.future`. */
export interface FutureOptions {
  /** Rejects with `TimeoutError` after this many milliseconds unless settled first. */
  timeoutMs?: number;
  /**
   * A checked future: while the job waits, a worker calls the tool's `check(args)` this often (backing off while
   * it throws) and settles the future with the first value that is not `undefined`. Needs a tool with `check`.
   * @default 60_000 for a tool with `check`
   */
  everyMs?: number;
}

/** The shortest {@link FutureOptions.everyMs}. */
export const MIN_CHECK_EVERY_MS = 10;

/** How often a checked future is checked when `everyMs` is not given. */
export const DEFAULT_CHECK_EVERY_MS = 60_000;

/** Makes the marker `ctx.future(key, options)` returns; throws a `TypeError` naming what is wrong. */
export function durableFuture(key: unknown, options: FutureOptions = {}): DurableFuture {
  if (typeof key !== "string" || !key.trim() || key.length > 500) throw new TypeError("ctx.future(key): key must be a non-empty string of at most 500 characters");
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError("ctx.future(key, { timeoutMs }): timeoutMs must be a positive number of milliseconds");
  }
  const everyMs = options.everyMs;
  if (everyMs !== undefined && !(typeof everyMs === "number" && Number.isFinite(everyMs) && everyMs >= MIN_CHECK_EVERY_MS)) {
    throw new TypeError(`ctx.future(key, { everyMs }): everyMs must be a number of milliseconds of at least ${MIN_CHECK_EVERY_MS}`);
  }
  return {
    kind: "statek.future", key, timeoutMs, errorHandler: undefined, everyMs, check: undefined,
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
  return "f" + JSON.stringify({
    key: future.key,
    ...(future.timeoutMs !== undefined ? { timeoutMs: future.timeoutMs } : {}),
    ...(future.errorHandler ? { errorHandler: future.errorHandler } : {}),
    ...(future.check ? { check: { ...future.check, everyMs: future.everyMs ?? DEFAULT_CHECK_EVERY_MS } } : {}),
  });
}
