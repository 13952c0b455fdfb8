/**
 * @module
 * The built-in system tools `brief(x, method?)` and `docstr(x, method?)`: agent code (or
 * the model, formally) asks for the documentation of a tool, function, class, object or method, and it is
 * printed to the console — `brief` the short form, `docstr` TypeScript declarations with JSDoc. `x` may be
 * the value itself or the name of a variable holding it. Problems are printed too, so the cell goes on:
 * `NameError: name 'x' is not defined`, `Error: Calendar has no method 'foo'`.
 */
import { z } from "zod";
import { NameError } from "../errors/name-error.ts";
import { formatError } from "../tools/call-tool.ts";
import { isTool, tool, type Tool, type ToolContext } from "../tools/tool.ts";
import { defaultAclFrom } from "./acl.ts";
import { briefDocs, fullDocs, type DocsOptions } from "./value-docs.ts";

type Render = (value: unknown, method: string | undefined, options: DocsOptions) => string;

const params = z.object({
  // Any value, or (from a formal call) the name of the variable holding it: a custom schema says so in the
  // provider payload, and accepts strings as they are, so the lookup below reports unknown names itself.
  what: z.custom<unknown>((value) => value !== undefined).describe("What to document: a tool, function, class or object."),
  method: z.string().optional().describe("A method or field of that class (or object) to document instead."),
});

function documentation(render: Render) {
  return ({ what, method }: { what?: unknown; method?: string | undefined }, ctx: ToolContext): undefined => {
    let target = what;
    if (typeof what === "string") {
      const found = ctx.variable(what);
      if (!found) {
        ctx.print(formatError(new NameError({ identifier: what, problem: "not-defined" })));
        return undefined;
      }
      target = found.value;
    }
    if (isTool(target) && target.hidden) {
      ctx.print(formatError(new NameError({ identifier: target.name, problem: "tool-not-exposed" })));
      return undefined;
    }
    const options: DocsOptions = { role: ctx.agent.role, defaultAcl: defaultAclFrom(ctx.job.metadata.STATEK_DEFAULT_ACL) };
    try {
      ctx.print(render(target, method?.trim() || undefined, options));
    } catch (error) {
      ctx.print(formatError(error));
    }
    return undefined;
  };
}

/** `brief(x, method?)`: prints the short documentation of a tool, function, class, object or method. */
export const briefTool: Tool = tool({
  name: "brief",
  description: "Print the short documentation of a tool, function, class or object (or one of its methods).",
  params,
  returns: "Nothing; the documentation is printed.",
  system: true,
  readOnly: true,
  run: documentation(briefDocs),
});

/** `docstr(x, method?)`: prints TypeScript declarations with JSDoc of a tool, function, class, object or method. */
export const docstrTool: Tool = tool({
  name: "docstr",
  description: "Print the full documentation (TypeScript declarations with JSDoc) of a tool, function, class or object (or one of its methods).",
  params,
  returns: "Nothing; the documentation is printed.",
  system: true,
  readOnly: true,
  run: documentation(fullDocs),
});

/** The documentation system tools, in the order they are registered. */
export const DOCUMENTATION_TOOLS: readonly Tool[] = Object.freeze([briefTool, docstrTool]);
