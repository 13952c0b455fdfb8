/**
 * @module
 * Maps the arguments of a call from agent code onto a tool's parameters: positional in parameter order, or
 * named — a single plain object whose keys are all parameter names, when the first parameter would not accept
 * that object itself.
 */
import type { z } from "zod";
import type { Tool } from "./tool.ts";
import { ValidationError } from "../errors/validation-error.ts";
import { isPlainObject } from "./is-plain-object.ts";

/** The arguments object for a call `tool(...args)`. */
export function bindArguments(tool: Tool, args: readonly unknown[]): Record<string, unknown> {
  const names = tool.parameterNames;
  const only = args[0];
  if (args.length === 1 && isPlainObject(only) && Object.keys(only).every((key) => names.includes(key))) {
    const first = names[0];
    const firstAccepts = first !== undefined && (tool.params.shape[first] as z.ZodType).safeParse(only).success;
    if (!firstAccepts || Object.keys(only).length === 0) return { ...only };
  }
  if (args.length > names.length) {
    throw new ValidationError({
      toolName: tool.name,
      expected: `expected at most ${names.length} argument${names.length === 1 ? "" : "s"} (${names.join(", ")})`,
      received: `${args.length}`,
    });
  }
  const bound: Record<string, unknown> = {};
  args.forEach((value, index) => {
    if (value !== undefined) bound[names[index]!] = value;
  });
  return bound;
}
