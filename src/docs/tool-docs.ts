/**
 * @module
 * Tool documentation for the model: the one-line brief, the normal description and the TypeScript
 * declaration of a tool, derived from its description and parameter schema.
 */
import { z } from "zod";
import type { Tool } from "../tools/tool.ts";

/** The first paragraph of a description. */
export function briefOf(description: string): string {
  return description.split(/\n\s*\n/)[0]!.replace(/\s+/g, " ").trim();
}

function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

/** A TypeScript type for a schema, as the model should read it. */
export function typeOf(schema: z.ZodType): string {
  const def = (schema as unknown as { _zod: { def: Record<string, any>; bag?: Record<string, any> } })._zod;
  switch (def.def.type) {
    case "string": return "string";
    case "number": case "int": return "number";
    case "boolean": return "boolean";
    case "bigint": return "bigint";
    case "date": return "Date";
    case "null": return "null";
    case "undefined": case "void": return "undefined";
    case "any": case "unknown": return "unknown";
    case "literal": return (def.def.values as unknown[]).map((value) => JSON.stringify(value)).join(" | ");
    case "enum": return Object.values(def.def.entries as Record<string, unknown>).map((value) => JSON.stringify(value)).join(" | ");
    case "array": return `${wrap(typeOf(def.def.element))}[]`;
    case "optional": case "default": case "prefault": case "nonoptional": case "readonly": case "catch":
      return typeOf(def.def.innerType);
    case "nullable": return `${typeOf(def.def.innerType)} | null`;
    case "union": return (def.def.options as z.ZodType[]).map(typeOf).join(" | ");
    case "record": return `Record<${typeOf(def.def.keyType)}, ${typeOf(def.def.valueType)}>`;
    case "map": return `Map<${typeOf(def.def.keyType)}, ${typeOf(def.def.valueType)}>`;
    case "set": return `Set<${typeOf(def.def.valueType)}>`;
    case "tuple": return `[${(def.def.items as z.ZodType[]).map(typeOf).join(", ")}]`;
    case "object": {
      const shape = def.def.shape as Record<string, z.ZodType>;
      const fields = Object.entries(shape).map(([key, value]) => `${key}${isOptional(value) ? "?" : ""}: ${typeOf(value)}`);
      return `{ ${fields.join("; ")} }`;
    }
    case "custom": return def.bag?.Class?.name ?? "unknown";
    case "pipe": return typeOf(def.def.in);
    default: return "unknown";
  }
}

function wrap(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** `name(a, b?)` — the call shape of a tool. */
export function signatureOf(tool: Tool, withTypes = false): string {
  const params = tool.parameterNames.map((name) => {
    const schema = tool.params.shape[name] as z.ZodType;
    const optional = isOptional(schema) ? "?" : "";
    return withTypes ? `${name}${optional}: ${typeOf(schema)}` : `${name}${optional}`;
  });
  return `${tool.name}(${params.join(", ")})`;
}

/** `{brief_tools}` line: `name(a, b?) — brief`. */
export function briefLine(tool: Tool): string {
  return `${signatureOf(tool)} — ${briefOf(tool.description)}`;
}

/** `{tools}` entry: typed signature, description, parameters and what it returns. */
export function toolEntry(tool: Tool): string {
  const lines = [signatureOf(tool, true), indent(tool.description)];
  for (const name of tool.parameterNames) {
    const description = (tool.params.shape[name] as z.ZodType).description;
    if (description) lines.push(`    ${name}: ${description}`);
  }
  if (tool.returns) lines.push(`    Returns: ${tool.returns}`);
  return lines.join("\n");
}

/** `{detailed_tools}` entry: a TypeScript declaration with JSDoc. */
export function toolDeclaration(tool: Tool): string {
  const doc = ["/**", ...tool.description.split("\n").map((line) => ` * ${line}`.trimEnd())];
  for (const name of tool.parameterNames) {
    const description = (tool.params.shape[name] as z.ZodType).description;
    if (description) doc.push(` * @param ${name} ${description}`);
  }
  if (tool.returns) doc.push(` * @returns ${tool.returns}`);
  doc.push(" */");
  return `${doc.join("\n")}\ndeclare function ${signatureOf(tool, true)}: unknown;`;
}

function indent(text: string): string {
  return text.split("\n").map((line) => `    ${line}`).join("\n");
}
