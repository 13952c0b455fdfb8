/**
 * @module
 * `tool()`: a function made into an agent capability. A tool has a name, a description the
 * model reads, a Zod object schema for its parameters, and a `run(args, ctx)` implementation. Agent code calls
 * it positionally (`findEmptySlot(calendar, meeting.endsAt)`) or with named arguments
 * (`findEmptySlot({ calendar, after: meeting.endsAt })`); the model may also call it formally.
 *
 * Everything about the definition is checked here, once, with a `TypeError` naming the tool and the problem,
 * so a mistake shows when the application starts rather than when a model first calls the tool.
 */
import { z } from "zod";
import { CHAT_STYLES, isChatStyle, type ChatStyle } from "./chat-style.ts";
import { isErrorHandler, type ErrorHandler } from "./error-handler.ts";
import { descriptionOf } from "./schema-shape.ts";
import { isIdentifier } from "./is-identifier.ts";
import type { DurableFuture, FutureOptions } from "./durable-future.ts";
import { checkNeedsApproval, type ApprovalDecision, type NeedsApproval } from "./approval.ts";
import type { ChildJobStart, StartJobOptions } from "./child-job.ts";

export { isTool } from "./is-tool.ts";

/** True for a tool the model may be told about: neither `hidden` nor `internal` (a name starting with `_`). */
export function isListed(tool: Tool): boolean {
  return !tool.hidden && !tool.internal;
}

/** The agent a job runs, as tools see it. */
export interface ToolAgent {
  readonly role: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The framework context a tool's `run` receives as its second argument. */
export interface ToolContext {
  /**
   * The job the call belongs to, with the metadata frozen into it at submit time, and its difficulty as it
   * stands during this call (`L`, `M`, `H`; it picks the model and prompt sections of a job whose agent uses it).
   */
  job: { id: string; role: string; metadata: Readonly<Record<string, unknown>>; difficulty?: "L" | "M" | "H" };
  /** The agent the job runs. */
  agent: ToolAgent;
  /** Prints to the job's console, as `print` does in agent code (for a formal call: into its result). */
  print(...values: unknown[]): void;
  /**
   * The job's workspace variable (or agent context value) called `name`, read live from the workspace, or
   * `undefined` when there is none. Plain data arrives as a copy, host objects as themselves. While agent code
   * runs, the host waits a few milliseconds at most for the read: past that it throws a `TimeoutError`.
   */
  variable(name: string): { value: unknown } | undefined;
  /** Aborted when the job is cancelled or the process stops. */
  signal: AbortSignal;
  /**
   * `${jobId}:${cell}:${seq}`: the same for every attempt at this call — a call in doubt after a crash is made
   * again with the same key (for `idempotent` tools), so a payment-style API can refuse the second one.
   */
  idempotencyKey: string;
  /**
   * A durable future for this call to return: agent code that awaits the result waits until the application
   * settles it (`statek.resolveFuture(key, value)` / `rejectFuture(key, error)`), its job suspended meanwhile.
   */
  future(key: string, options?: FutureOptions): DurableFuture;
  /**
   * Starts a child job of the agent (or the registered agent with that role) with its own variables,
   * parameters and opening message; return what it gives from the tool, and agent code gets a handle it can
   * `await` (the child's exit value, or `ChildJobFailed: …`). Only in calls from agent code.
   *
   * @example
   * ```ts
   * run: ({ topic }, ctx) => ctx.startJob(researcher, { vars: { topic }, message: `Research ${topic}.` }),
   * ```
   */
  startJob(agentOrRole: ToolAgent | string, options?: StartJobOptions): ChildJobStart;
  /** The human decision a call of a `needsApproval` tool runs under (only in an approved call). */
  approval?: ApprovalDecision;
}

/** A Zod object schema describing a tool's parameters. */
export type ToolParams = z.ZodObject<z.ZodRawShape>;

/** What {@link tool} accepts. */
export interface ToolDefinition<Params extends ToolParams, Result> {
  /** The name agent code calls. @default the name of `run` */
  name?: string;
  /**
   * What the tool does, for the model. The first paragraph is its brief; `VARIANTS/:text/TOOL:text` gives
   * the model (`TOOL`) a wording of its own.
   */
  description: string;
  /** Parameters, in positional order; each one described with `.describe("…")`. @default z.object({}) */
  params?: Params;
  /** What the tool returns, for the model: a sentence, or a Zod schema (its type and description are shown). */
  returns?: string | z.ZodType;
  /** The implementation; may be async. */
  run: (args: z.output<Params>, ctx: ToolContext) => Result | Promise<Result>;
  /** A framework tool rather than an application one. @default false */
  system?: boolean;
  /**
   * Never shown to the model (prompts, provider payloads, `brief`), and refused to agent code unless the code
   * is allowed hidden tools (warmup marked hidden). A name starting with `_` is different: such a tool is never
   * listed either, but agent code may call it (see {@link Tool.internal}). @default false
   */
  hidden?: boolean;
  /** The chat styles the tool is meant for; other styles do not offer it. @default every style */
  target?: ChatStyle | readonly ChatStyle[];
  /** No side effects: safe to re-run. @default false */
  readOnly?: boolean;
  /**
   * Safe to call again with the same `ctx.idempotencyKey`: a call that was started and never finished (its
   * worker stopped) is made again after a restart, instead of answering `InDoubtError`. @default false
   */
  idempotent?: boolean;
  /** Show parameter types in the tool's brief form (`{brief_tools}`, `brief()`). @default false */
  briefTypes?: boolean;
  /** Registered on the job with this tool's result as context; runs if the job fails. */
  errorHandler?: ErrorHandler;
  /**
   * A human must approve each call (`true`), or the calls for which `(args, ctx) => boolean` says so (it gets
   * the validated arguments). Such a call does not run: its job waits (suspended) until
   * `statek.approve(jobId, requestId, { note })` — then it runs once, with the decision in `ctx.approval` — or
   * `statek.deny(…)`, which makes the awaiting code throw `ApprovalDenied: <note>`. Only calls from agent code
   * can wait; a formal (provider) call of such a tool is refused. @default false
   *
   * @example
   * ```ts
   * tool({ …, needsApproval: ({ amount }) => amount > 100, run: ({ amount }, ctx) => bank.pay(amount, ctx.idempotencyKey) });
   * ```
   */
  needsApproval?: NeedsApproval;
  /**
   * Makes the futures `run` returns *checked*: while the job waits for one (`ctx.future(key, { everyMs,
   * timeoutMs })`), a worker that has the job's agent calls `check` with the call's arguments every `everyMs`
   * (backing off while it throws) and settles the future with the first value that is not `undefined`. The
   * arguments are stored as JSON (dates as ISO strings, prepared again for the call), so any worker, after any
   * restart, can check.
   *
   * @example
   * ```ts
   * run: ({ id }, ctx) => ctx.future(`ship:${id}`, { everyMs: 60_000, timeoutMs: 7 * 86_400_000 }),
   * check: async ({ id }) => (await orders.get(id)).shippedAt ?? undefined,
   * ```
   */
  check?: (args: z.output<Params>) => unknown;
}

/** A tool: the value {@link tool} returns. */
export interface Tool<Params extends ToolParams = ToolParams, Result = unknown> {
  readonly kind: "statek.tool";
  readonly name: string;
  readonly description: string;
  readonly params: Params;
  /** Parameter names in positional order. */
  readonly parameterNames: readonly string[];
  readonly returns: string | z.ZodType | undefined;
  readonly run: (args: z.output<Params>, ctx: ToolContext) => Result | Promise<Result>;
  readonly system: boolean;
  readonly hidden: boolean;
  /**
   * The name starts with `_`: the tool is never listed (prompts, provider payloads, MCP), but agent code that
   * knows its name may call it — plumbing the application's own warmup or documentation mentions. A `hidden`
   * tool is refused to agent code as well.
   */
  readonly internal: boolean;
  readonly target: ChatStyle | readonly ChatStyle[] | undefined;
  readonly readOnly: boolean;
  readonly idempotent: boolean;
  readonly briefTypes: boolean;
  readonly errorHandler: ErrorHandler | undefined;
  /** Whether calls need a human's approval (see {@link ToolDefinition.needsApproval}). */
  readonly needsApproval: NeedsApproval;
  /** Checks the readiness of the futures it returns (see {@link ToolDefinition.check}). */
  readonly check: ((args: z.output<Params>) => unknown) | undefined;
}


/** Parameter names a tool may not use: `ctx` is `run`'s second argument; `__proto__` cannot be a key. */
export const RESERVED_PARAMETER_NAMES: readonly string[] = Object.freeze(["ctx", "__proto__"]);

function checkTarget(label: string, target: unknown): ChatStyle | readonly ChatStyle[] | undefined {
  if (target === undefined) return undefined;
  const list = typeof target === "string" ? [target] : Array.isArray(target) ? target : [target];
  const bad = list.find((style) => !isChatStyle(style));
  if (bad !== undefined || list.length === 0) {
    throw new TypeError(
      `${label}: target must be a chat style (${CHAT_STYLES.join(", ")}) or a non-empty list of them (got ${JSON.stringify(bad ?? target)})`,
    );
  }
  return typeof target === "string" ? (target as ChatStyle) : Object.freeze([...(list as ChatStyle[])]);
}

/**
 * Defines a tool.
 *
 * @example
 * ```ts
 * const findEmptySlot = tool({
 *   description: "Find an available calendar slot after a given time.",
 *   params: z.object({
 *     calendar: z.instanceof(Calendar).describe("Calendar object to search."),
 *     after: z.date().describe("Earliest acceptable start time."),
 *   }),
 *   run: function findEmptySlot({ calendar, after }) { return calendar.findEmptySlot({ after }); },
 * });
 * ```
 */
export function tool<Params extends ToolParams = z.ZodObject<{}>, Result = unknown>(
  definition: ToolDefinition<Params, Result>,
): Tool<Params, Result> {
  // `run: () => …` is named "run" by its property: that is no tool name, so it must be passed.
  const derived = definition.run?.name;
  const name = definition.name ?? (derived === "run" ? "" : derived);
  const label = name ? `tool '${name}'` : "tool()";
  if (typeof definition.run !== "function") throw new TypeError(`${label}: run must be a function`);
  if (!name || !isIdentifier(name)) {
    throw new TypeError(`${label}: name must be an identifier (pass name, or give run a name) (got ${JSON.stringify(name ?? "")})`);
  }
  if (typeof definition.description !== "string" || !definition.description.trim()) {
    throw new TypeError(`${label}: description must not be empty`);
  }
  const params = (definition.params ?? z.object({})) as Params;
  if (!(params instanceof z.ZodObject)) throw new TypeError(`${label}: params must be a Zod object schema (z.object({...}))`);
  for (const [key, schema] of Object.entries(params.shape)) {
    if (!isIdentifier(key)) throw new TypeError(`${label}: parameter name '${key}' is not an identifier`);
    if (RESERVED_PARAMETER_NAMES.includes(key)) {
      throw new TypeError(`${label}: parameter name '${key}' is reserved (the framework context is run's second argument, ctx)`);
    }
    if (!descriptionOf(schema as z.ZodType)) throw new TypeError(`${label}: parameter '${key}' has no description (add .describe("…"))`);
  }
  if (definition.errorHandler !== undefined && !isErrorHandler(definition.errorHandler)) {
    throw new TypeError(
      `${label}: errorHandler must be made with errorHandler({ name, run }): a name starting with '_' and run(context, error?)`,
    );
  }
  const returns = definition.returns;
  if (returns !== undefined && typeof returns !== "string" && !(returns instanceof z.ZodType)) {
    throw new TypeError(`${label}: returns must be a string or a Zod schema`);
  }
  const target = checkTarget(label, definition.target);
  const needsApproval = checkNeedsApproval(label, definition.needsApproval);
  if (definition.check !== undefined && typeof definition.check !== "function") throw new TypeError(`${label}: check must be a function (args) => value, or undefined while not ready`);
  return Object.freeze({
    kind: "statek.tool",
    name,
    description: definition.description.trim(),
    params,
    parameterNames: Object.freeze(Object.keys(params.shape)),
    returns,
    run: definition.run,
    system: definition.system ?? false,
    hidden: definition.hidden ?? false,
    internal: name.startsWith("_"),
    target,
    readOnly: definition.readOnly ?? false,
    idempotent: definition.idempotent ?? false,
    briefTypes: definition.briefTypes ?? false,
    errorHandler: definition.errorHandler,
    needsApproval,
    check: definition.check,
  });
}
