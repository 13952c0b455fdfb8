/**
 * @module
 * `tool()`: a function made into an agent capability (DESIGN.md §5). A tool has a name, a description the
 * model reads, a Zod object schema for its parameters, and a `run(args, ctx)` implementation. Agent code calls
 * it positionally (`findEmptySlot(calendar, meeting.endsAt)`) or with named arguments
 * (`findEmptySlot({ calendar, after: meeting.endsAt })`); the model may also call it formally.
 */
import { z } from "zod";

/** The framework context a tool's `run` receives as its second argument. */
export interface ToolContext {
  /** The job the call belongs to. */
  job: { id: string; role: string };
  /** Prints to the job's console, as `print` does in agent code. */
  print(...values: unknown[]): void;
  /** Aborted when the job is cancelled or the process stops. */
  signal: AbortSignal;
}

/** A Zod object schema describing a tool's parameters. */
export type ToolParams = z.ZodObject<z.ZodRawShape>;

/** What {@link tool} accepts. */
export interface ToolDefinition<Params extends ToolParams, Result> {
  /** The name agent code calls. @default the name of `run` */
  name?: string;
  /** What the tool does, for the model. The first paragraph is its brief. */
  description: string;
  /** Parameters, in positional order. @default z.object({}) */
  params?: Params;
  /** What the tool returns, for the model. */
  returns?: string;
  /** The implementation; may be async. */
  run: (args: z.output<Params>, ctx: ToolContext) => Result | Promise<Result>;
  /** A framework tool rather than an application one. @default false */
  system?: boolean;
  /** Callable by code that is allowed hidden tools, but never shown to the model. @default false */
  hidden?: boolean;
  /** No side effects: safe to re-run. @default false */
  readOnly?: boolean;
}

/** A tool: the value {@link tool} returns. */
export interface Tool<Params extends ToolParams = ToolParams, Result = unknown> {
  readonly kind: "statek.tool";
  readonly name: string;
  readonly description: string;
  readonly params: Params;
  /** Parameter names in positional order. */
  readonly parameterNames: readonly string[];
  readonly returns: string | undefined;
  readonly run: (args: z.output<Params>, ctx: ToolContext) => Result | Promise<Result>;
  readonly system: boolean;
  readonly hidden: boolean;
  readonly readOnly: boolean;
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
 *   run: ({ calendar, after }) => calendar.findEmptySlot({ after }),
 * });
 * ```
 */
export function tool<Params extends ToolParams = z.ZodObject<{}>, Result = unknown>(
  definition: ToolDefinition<Params, Result>,
): Tool<Params, Result> {
  const name = definition.name ?? definition.run?.name;
  const label = name ? `tool '${name}'` : "tool()";
  if (typeof definition.run !== "function") throw new TypeError(`${label}: run must be a function`);
  if (!name || !/^[A-Za-z_$][\w$]*$/.test(name)) throw new TypeError(`${label}: name must be an identifier`);
  if (typeof definition.description !== "string" || !definition.description.trim()) {
    throw new TypeError(`${label}: description must not be empty`);
  }
  const params = (definition.params ?? z.object({})) as Params;
  if (!(params instanceof z.ZodObject)) throw new TypeError(`${label}: params must be a Zod object schema (z.object({...}))`);
  return Object.freeze({
    kind: "statek.tool",
    name,
    description: definition.description.trim(),
    params,
    parameterNames: Object.freeze(Object.keys(params.shape)),
    returns: definition.returns,
    run: definition.run,
    system: definition.system ?? false,
    hidden: definition.hidden ?? false,
    readOnly: definition.readOnly ?? false,
  });
}

/** True for a value made by {@link tool}. */
export function isTool(value: unknown): value is Tool {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.tool";
}
