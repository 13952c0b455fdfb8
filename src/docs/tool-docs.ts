/**
 * @module
 * Tool documentation for the model, from a tool's description and parameter schema: the
 * one-line brief (`{brief_tools}`, `{typed_brief_tools}`, `brief(tool)`), the normal entry (`{tools}`) and the TypeScript
 * declaration with JSDoc (`{detailed_tools}`, `docstr(tool)`). Every text is the model's variant
 * (`VARIANTS/…/TOOL:…`); the first paragraph of the description is the brief.
 */
import { z } from "zod";
import { defaultOf, descriptionOf, isOptionalSchema } from "../tools/schema-shape.ts";
import type { Tool } from "../tools/tool.ts";
import { typeOf, type TypeOfOptions } from "./type-of.ts";
import { forModel } from "./variants.ts";

export { typeOf, type TypeOfOptions } from "./type-of.ts";

/** The first paragraph of a description, on one line. */
export function briefOf(description: string): string {
  return (forModel(description) ?? "").split(/\n\s*\n/)[0]!.replace(/\s+/g, " ").trim();
}

/** A tool's description as the model reads it (its `tool` variant). */
export function descriptionFor(tool: Tool): string {
  return forModel(tool.description) ?? "";
}

/** What the tool returns, in words, for the model; `undefined` when it does not say. */
export function returnsText(tool: Tool): string | undefined {
  const returns = tool.returns;
  if (returns === undefined) return undefined;
  return forModel(typeof returns === "string" ? returns : descriptionOf(returns)) || undefined;
}

/** The TypeScript type a tool's call gives agent code: `Promise<…>` (awaiting works for every tool). */
export function returnTypeOf(tool: Tool): string {
  const returns = tool.returns;
  return `Promise<${returns instanceof z.ZodType ? typeOf(returns) : "unknown"}>`;
}

function parameterSchema(tool: Tool, name: string): z.ZodType {
  return tool.params.shape[name] as z.ZodType;
}

/** A parameter's description for the model, with its default: `Required meeting length. (default 30)`. */
export function parameterText(tool: Tool, name: string): string {
  const schema = parameterSchema(tool, name);
  const text = forModel(descriptionOf(schema)) ?? "";
  const fallback = defaultOf(schema);
  if (!fallback) return text;
  let shown: string;
  try {
    shown = JSON.stringify(fallback.value) ?? String(fallback.value);
  } catch {
    shown = String(fallback.value);
  }
  return `${text} (default ${shown})`.trim();
}

/** `name(a, b?)`, or with `withTypes` `name(a: A, b?: B)` — the call shape of a tool. */
export function signatureOf(tool: Tool, withTypes = false, options: TypeOfOptions = {}): string {
  const params = tool.parameterNames.map((name) => {
    const schema = parameterSchema(tool, name);
    const optional = isOptionalSchema(schema) ? "?" : "";
    return withTypes ? `${name}${optional}: ${typeOf(schema, options)}` : `${name}${optional}`;
  });
  return `${tool.name}(${params.join(", ")})`;
}

/**
 * `{brief_tools}` line: `name(a, b?) — brief`, with the parameter types when the tool has `briefTypes` or
 * `withTypes` is set (`{typed_brief_tools}`: `name(a: A, b?: B) — brief`).
 */
export function briefLine(tool: Tool, withTypes = tool.briefTypes): string {
  const brief = briefOf(tool.description);
  return brief ? `${signatureOf(tool, withTypes)} — ${brief}` : signatureOf(tool, withTypes);
}

/** `brief(tool)`: the brief line, and what it returns. */
export function toolBrief(tool: Tool): string {
  const returns = returnsText(tool);
  return returns ? `${briefLine(tool)}\n    Returns: ${returns}` : briefLine(tool);
}

/** `{tools}` entry: typed signature, description, parameters and what it returns. */
export function toolEntry(tool: Tool): string {
  const lines = [signatureOf(tool, true), indent(descriptionFor(tool))];
  for (const name of tool.parameterNames) {
    const text = parameterText(tool, name);
    if (text) lines.push(`    ${name}: ${text}`);
  }
  const returns = returnsText(tool);
  if (returns) lines.push(`    Returns: ${returns}`);
  return lines.join("\n");
}

/** A JSDoc block from a description, `@param` lines and a `@returns` line, indented by `indentBy`. */
export function jsDoc(description: string, params: ReadonlyArray<[string, string]>, returns: string | undefined, indentBy = ""): string {
  // `*/` inside a description would end the comment early.
  const safe = (text: string) => text.replaceAll("*/", "*\\/");
  const documented = params.filter(([, text]) => text);
  if (!documented.length && !returns && !description.includes("\n")) return `${indentBy}/** ${safe(description)} */`;
  const lines = [`${indentBy}/**`];
  for (const line of safe(description).split("\n")) lines.push(`${indentBy} * ${line}`.trimEnd());
  for (const [name, text] of documented) lines.push(`${indentBy} * @param ${name} ${safe(text)}`);
  if (returns) lines.push(`${indentBy} * @returns ${safe(returns)}`);
  lines.push(`${indentBy} */`);
  return lines.join("\n");
}

/** `{detailed_tools}` entry and `docstr(tool)`: a TypeScript declaration with JSDoc. */
export function toolDeclaration(tool: Tool): string {
  const doc = jsDoc(descriptionFor(tool), tool.parameterNames.map((name) => [name, parameterText(tool, name)]), returnsText(tool));
  return `${doc}\ndeclare function ${signatureOf(tool, true)}: ${returnTypeOf(tool)};`;
}

function indent(text: string): string {
  return text.split("\n").map((line) => `    ${line}`.trimEnd()).join("\n");
}
