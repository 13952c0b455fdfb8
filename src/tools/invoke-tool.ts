/**
 * @module
 * Calling a tool: bind the arguments (positional or named), prepare them (enum names, ISO dates, live
 * variables), validate them against the schema (defaults applied), run it. The one path every call takes,
 * from agent code and from formal tool calls alike.
 */
import { bindArguments } from "./bind-arguments.ts";
import { validationErrorFor } from "./describe-issue.ts";
import { prepareArguments, type PrepareOptions } from "./prepare-arguments.ts";
import type { Tool, ToolContext } from "./tool.ts";

/** A tool call's validated arguments, ready to run. */
export interface PreparedCall {
  tool: Tool;
  args: Record<string, unknown>;
}

/** Binds, prepares and validates a call; throws `ValidationError` for bad arguments. */
export function prepareCall(tool: Tool, args: readonly unknown[] | Record<string, unknown>, options: PrepareOptions = {}): PreparedCall {
  const bound = Array.isArray(args) ? bindArguments(tool, args) : { ...(args as Record<string, unknown>) };
  const prepared = prepareArguments(tool, bound, options);
  const parsed = tool.params.safeParse(prepared);
  if (!parsed.success) throw validationErrorFor(tool, prepared, parsed.error.issues);
  return { tool, args: parsed.data as Record<string, unknown> };
}

/** Runs a prepared call; the result may be a promise when the tool is async. */
export function runPreparedCall(call: PreparedCall, ctx: ToolContext): unknown {
  return call.tool.run(call.args as never, ctx);
}
