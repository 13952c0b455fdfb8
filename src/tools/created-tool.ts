/**
 * @module
 * Tools made at run time (`createTool`): a job's warmup code (usually hidden) makes a tool with no parameters
 * that calls one of the job's tools with arguments fixed now — `approveThisOrder()` for `approveOrder(17)` —
 * so the model is handed exactly the capability the job is about, listed in its prompt like any tool. What is
 * kept is data (the name, the tool called, the description, the arguments), stored with the job: the tool is
 * rebuilt from it in every process that steps the job.
 */
import { z } from "zod";
import { isIdentifier } from "./is-identifier.ts";
import { jobRequest, type CreatedToolSpec } from "./job-request.ts";
import { prepareCall, runPreparedCall } from "./invoke-tool.ts";
import { isTool, tool, type Tool } from "./tool.ts";

/** Most tools one job may make. */
export const MAX_CREATED_TOOLS = 50;

/**
 * The zero-parameter tool a spec describes, calling `base` with the spec's arguments (bound, prepared and
 * validated as any call of `base` is). It inherits what `base` is: read-only, idempotent, approval, error
 * handler, chat styles.
 */
export function boundTool(spec: CreatedToolSpec, base: Tool): Tool {
  const prepared = (variable?: (name: string) => { value: unknown } | undefined) =>
    prepareCall(base, spec.args, variable ? { variable } : {});
  const needsApproval = base.needsApproval;
  return tool({
    name: spec.name,
    description: spec.description,
    returns: base.returns,
    run: (_args, ctx) => runPreparedCall(prepared((name) => ctx.variable(name)), ctx),
    readOnly: base.readOnly,
    idempotent: base.idempotent,
    ...(base.target === undefined ? {} : { target: base.target }),
    ...(base.errorHandler ? { errorHandler: base.errorHandler } : {}),
    needsApproval: typeof needsApproval === "function" ? (_args: unknown, ctx) => needsApproval(prepared((name) => ctx.variable(name)).args, ctx) : needsApproval,
  });
}

const params = z.object({
  name: z.string().describe("The new tool's name (an identifier)."),
  // A tool in scope, or its name; strings are taken as they are (no live-variable binding to a tool).
  tool: z.custom<Tool | string>((value) => isTool(value) || typeof value === "string").describe("The job's tool it calls (the tool, or its name)."),
  description: z.string().min(1).describe("What the new tool does, for the model."),
  args: z.array(z.json()).default([]).describe("The arguments it calls that tool with, in order (JSON values)."),
});

/**
 * `createTool(name, tool, description, args?)`: makes a tool with no parameters that calls `tool` with `args`,
 * in scope by name from the next cell on and listed in the job's prompt. A hidden system tool: the
 * application's warmup code marked hidden may call it, the model's code may not.
 *
 * @example
 * ```ts
 * // in a hidden warmup block:
 * createTool("approveThisOrder", approveOrder, "Approve the order this job is about.", [order.id])
 * ```
 */
export const createToolTool: Tool = tool({
  name: "createTool",
  description: "Make a tool with no parameters that calls one of the job's tools with fixed arguments; it is in scope from the next cell on.",
  params,
  returns: "Nothing.",
  system: true,
  hidden: true,
  run: ({ name, tool: base, description, args }, ctx) => {
    if (!isIdentifier(name)) throw new TypeError(`createTool: '${name}' is not an identifier`);
    if (ctx.variable(name)) throw new TypeError(`createTool: the name '${name}' is taken in this job (by a tool, a context value or a variable)`);
    const found = typeof base === "string" ? ctx.variable(base)?.value : base;
    if (!isTool(found)) throw new TypeError(`createTool: the job has no tool named '${String(base)}'`);
    const spec: CreatedToolSpec = { name, base: found.name, description: description.trim(), args };
    return jobRequest(undefined, [{ type: "tool", spec }]);
  },
});
