/**
 * @module
 * Error handlers on the job side: which handlers a process knows by name, and running a failed
 * job's handlers. A tool's result registers its handler on the job (`state.errorHandlers`: name and encoded
 * context); when the job fails, `StepChanges.fail` takes them off the job and the committer calls
 * {@link runErrorHandlers} before the commit — in registration order, each with its decoded context and the
 * job's error. Each run is logged as an `error-handler` history record; a handler that throws, hangs past the
 * time limit, or is not registered in this process is logged as such and never masks the job's own error.
 */
import { formatError } from "../../tools/call-tool.ts";
import { isErrorHandler, type ErrorHandler } from "../../tools/error-handler.ts";
import { decodeValue, loadReferences } from "../../workspace/decode-variables.ts";
import type { RegisteredErrorHandler } from "../../workspace/workspace.ts";
import type { Agent } from "../../agents/agent.ts";
import { kindOf } from "../../tools/with-article.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";

/** How long one error handler may run before it is logged as failed and the step goes on. */
export const ERROR_HANDLER_TIME_LIMIT_MS = 10_000;

/** The error handlers a process can run, by name: registered explicitly and collected from agents' tools. */
export class ErrorHandlers {
  readonly #byName = new Map<string, ErrorHandler>();

  /**
   * Adds a handler; a different handler under a name already taken is a `TypeError`. `call` is the public call
   * that brought it (`registerErrorHandler`, `Statek.open`), named in errors.
   */
  register(handler: ErrorHandler, call = "registerErrorHandler"): void {
    if (!isErrorHandler(handler)) throw new TypeError(`${call}: expected an error handler made with errorHandler({ name, run }), got ${kindOf(handler)}`);
    const existing = this.#byName.get(handler.name);
    if (existing && existing !== handler) throw new TypeError(`${call}: two different error handlers are named '${handler.name}'`);
    this.#byName.set(handler.name, handler);
  }

  /** Adds the handlers of an agent's tools; `call` is the public call that registers the agent. */
  collect(agent: Agent, call: string): void {
    for (const tool of agent.registry.all) if (tool.errorHandler) this.register(tool.errorHandler, call);
  }

  /** The handler called `name`, if this process has it. */
  get(name: string): ErrorHandler | undefined {
    return this.#byName.get(name);
  }
}

async function withinLimit(work: Promise<void>, name: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`error handler ${name} did not finish within ${ERROR_HANDLER_TIME_LIMIT_MS / 1000} s`)), ERROR_HANDLER_TIME_LIMIT_MS);
  });
  try {
    await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

async function runOne(env: StepEnvironment, agent: Agent | undefined, entry: RegisteredErrorHandler, error: unknown, changes: StepChanges): Promise<void> {
  const started = performance.now();
  const log = (outcome: "done" | "failed" | "missing", problem?: string) => {
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    changes.append("error-handler", { name: entry.name, outcome, ...(problem === undefined ? {} : { error: problem }), durationMs });
  };
  const handler = env.errorHandler(entry.name);
  if (!handler) {
    return log("missing", `Error: error handler '${entry.name}' is not registered in this process ` +
      "(give it to a tool of the agent, or to Statek.open({ errorHandlers }))");
  }
  try {
    const bindings = new Map(env.bindings);
    for (const [name, value] of Object.entries(agent?.context ?? {})) bindings.set(name, value);
    const references = await loadReferences([entry.context], { bindings, tools: agent?.registry.all ?? [], exposed: env.exposed });
    const context = decodeValue(entry.context, references);
    await withinLimit(Promise.resolve().then(() => handler.run(context, error)), entry.name);
    log("done");
  } catch (problem) {
    log("failed", formatError(problem));
  }
}

/**
 * Runs the handlers of a failed step (see the module comment); never throws. Without the job's agent (not
 * registered in this process), contexts are decoded against the process's bindings only.
 */
export async function runErrorHandlers(env: StepEnvironment, agent: Agent | undefined, changes: StepChanges): Promise<void> {
  const failure = changes.failure;
  if (!failure) return;
  const handlers = failure.handlers.splice(0);
  for (const entry of handlers) await runOne(env, agent, entry, failure.error, changes);
}
