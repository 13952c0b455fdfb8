/**
 * @module
 * Error handlers: cleanup a tool leaves behind on its job. A tool declared with
 * `errorHandler: h` registers `h` on the current job, with the tool's result as `context`, just before the
 * result is returned to agent code. If the job later ends `FAILED` (harness limit, critical error, failed
 * warmup, cancellation) every registered handler runs once, in registration order, as `run(context, error)`.
 * Handlers are stored by name, so a job that failed in another process still finds them — which is why a
 * handler must be made with {@link errorHandler} and registered in every process that runs the job's agent.
 */

/** An error handler: the value {@link errorHandler} returns. */
export interface ErrorHandler<Context = any> {
  readonly kind: "statek.errorHandler";
  /** Its stable name (starts with `_`): jobs store handlers by it. */
  readonly name: string;
  /** The cleanup. Receives the tool's result and the job's error. */
  readonly run: (context: Context, error?: unknown) => void | Promise<void>;
}

/** What {@link errorHandler} accepts. */
export interface ErrorHandlerDefinition<Context> {
  /** A stable name starting with `_` (it is stored with the job, and looked up again on failure). */
  name: string;
  /** The cleanup; may be async. Its own errors are logged in the job's history, never raised. */
  run: (context: Context, error?: unknown) => void | Promise<void>;
}

/**
 * Defines an error handler.
 *
 * @example
 * ```ts
 * const releaseClaim = errorHandler({
 *   name: "_releaseClaim",
 *   run: (claim: { id: string }, error) => claims.release(claim.id, String(error)),
 * });
 * const claimTicket = tool({ description: "Claim a ticket.", errorHandler: releaseClaim, run: () => claims.take() });
 * ```
 */
export function errorHandler<Context = any>(definition: ErrorHandlerDefinition<Context>): ErrorHandler<Context> {
  const name = definition?.name;
  if (typeof name !== "string" || !/^_[A-Za-z0-9_$]*$/.test(name) || name.length < 2) {
    throw new TypeError(`errorHandler: name must be an identifier starting with '_' (got ${JSON.stringify(name)})`);
  }
  if (typeof definition.run !== "function") throw new TypeError(`errorHandler '${name}': run must be a function (context, error?) => …`);
  return Object.freeze({ kind: "statek.errorHandler", name, run: definition.run });
}

/** True for a value made by {@link errorHandler}. */
export function isErrorHandler(value: unknown): value is ErrorHandler {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.errorHandler" &&
    typeof (value as ErrorHandler).name === "string" && typeof (value as ErrorHandler).run === "function";
}

/**
 * The hook for results that resolve later (durable futures): a result with a method under this symbol is not
 * registered at once; instead the method is called with a `register(value)` callback, which the result calls
 * when it first resolves — registering the handler with the resolved value as its context.
 */
export const DEFER_ERROR_HANDLER: unique symbol = Symbol.for("statek.deferErrorHandler") as never;

/** A result that defers its error handler's registration until it resolves (see {@link DEFER_ERROR_HANDLER}). */
export interface DeferredRegistration {
  [DEFER_ERROR_HANDLER](register: (resolved: unknown) => void): void;
}

/** True when `value` defers its error handler's registration. */
export function defersRegistration(value: unknown): value is DeferredRegistration {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as Partial<DeferredRegistration>)[DEFER_ERROR_HANDLER] === "function";
}
