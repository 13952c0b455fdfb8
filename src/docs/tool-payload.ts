/**
 * @module
 * Provider tool payloads: name, description and the JSON Schema (draft 7, from Zod's
 * converter) of each tool's arguments, in one of two profiles:
 *
 * - `plain`: the schema as Zod converts it, for most providers;
 * - `strict`: OpenAI's strict mode — every property required, optional ones nullable (the model sends
 *   `null` for "left out", which argument preparation turns back into "left out"), no additional properties,
 *   no `default` keywords. A schema strict mode cannot express (records, maps) falls back to `plain` for that
 *   tool, with `strict: false`.
 *
 * JSON has no `Date` and no live objects, so a date parameter is an ISO-8601 string (`format: date-time`),
 * and a parameter that takes an object of a class (`z.instanceof(Calendar)`) is a string naming the
 * workspace variable that holds it — live-variable binding resolves it when the call runs. An enum
 * parameter lists its member names.
 */
import { z } from "zod";
import type { ModelToolPayload } from "../models/model-request.ts";
import { enumMembersOf } from "../tools/enum-members.ts";
import { instanceClassOf, schemaType } from "../tools/schema-shape.ts";
import type { Tool } from "../tools/tool.ts";
import { withArticle } from "../tools/with-article.ts";
import { descriptionFor, returnsText } from "./tool-docs.ts";
import { forModel } from "./variants.ts";

/** Which JSON Schema profile a provider gets. */
export type PayloadProfile = "strict" | "plain";


type JsonSchema = Record<string, any>;

function override(context: { zodSchema: z.ZodType; jsonSchema: JsonSchema }): void {
  const { zodSchema, jsonSchema } = context;
  const type = schemaType(zodSchema);
  const members = type === "enum" || type === "custom" ? enumMembersOf(zodSchema) : undefined;
  if (members) {
    for (const key of Object.keys(jsonSchema)) if (key !== "description") delete jsonSchema[key];
    jsonSchema.type = "string";
    jsonSchema.enum = Object.keys(members);
  } else if (type === "date") {
    jsonSchema.type = "string";
    jsonSchema.format = "date-time";
  } else if (type === "custom") {
    const cls = instanceClassOf(zodSchema);
    jsonSchema.type = "string";
    const holding = `the name of a workspace variable holding ${cls?.name ? withArticle(cls.name) : "the value"}`;
    jsonSchema.description = jsonSchema.description ? `${jsonSchema.description} (${holding})` : holding.replace(/^t/, "T");
  }
  if (typeof jsonSchema.description === "string") jsonSchema.description = forModel(jsonSchema.description);
}

/** The plain JSON Schema of a tool's arguments. */
export function plainInputSchema(tool: Tool): JsonSchema {
  const schema = z.toJSONSchema(tool.params, {
    target: "draft-7",
    io: "input",
    unrepresentable: "any",
    override: override as never,
  }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

/** The strict-mode form of a plain schema, or `undefined` when strict mode cannot express it. */
export function strictInputSchema(plain: JsonSchema): JsonSchema | undefined {
  let expressible = true;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== "object" || node === null) return node;
    const copy: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "default") continue;
      copy[key] = key === "properties" ? value : visit(value);
    }
    const isObject = copy.type === "object" || copy.properties !== undefined;
    if (!isObject) return copy;
    if (copy.patternProperties || copy.propertyNames || (copy.additionalProperties !== undefined && copy.additionalProperties !== false)) {
      expressible = false;
    }
    const properties = (copy.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set<string>(copy.required ?? []);
    copy.properties = Object.fromEntries(Object.entries(properties).map(([name, property]) => {
      const strict = visit(property) as JsonSchema;
      // Strict mode needs every property typed; `{}` (anything: a Map, a function) cannot be said.
      if (!["type", "anyOf", "enum", "const", "$ref"].some((key) => key in strict)) expressible = false;
      return [name, required.has(name) ? strict : nullable(strict)];
    }));
    copy.required = Object.keys(properties);
    copy.additionalProperties = false;
    return copy;
  };
  const result = visit(plain) as JsonSchema;
  return expressible ? result : undefined;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string" && schema.enum === undefined && schema.const === undefined) {
    return { ...schema, type: [schema.type, "null"] };
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}

/** The payload of one tool: its model-variant description (with what it returns) and argument schema. */
export function toolPayload(tool: Tool, profile: PayloadProfile = "plain"): ModelToolPayload {
  const returns = returnsText(tool);
  const description = returns ? `${descriptionFor(tool)}\n\nReturns: ${returns}` : descriptionFor(tool);
  const plain = plainInputSchema(tool);
  if (profile === "strict") {
    const strict = strictInputSchema(plain);
    if (strict) return { name: tool.name, description, inputSchema: strict, strict: true };
    return { name: tool.name, description, inputSchema: plain, strict: false };
  }
  return { name: tool.name, description, inputSchema: plain };
}

/**
 * The profile for a model: the job's `TOOLS_SCHEMA` metadata (`strict` or `plain`) when set, else `strict`
 * for OpenAI's own provider (the AI SDK names it `openai.chat`, `openai.responses`, …) and `plain` for every
 * other provider (OpenAI-compatible gateways included, as they differ in what strict mode accepts).
 */
export function payloadProfileFor(provider: string, metadata: Readonly<Record<string, unknown>> = {}): PayloadProfile {
  const setting = metadata.TOOLS_SCHEMA;
  if (typeof setting === "string" && setting.trim()) {
    const value = setting.trim().toLowerCase();
    if (value === "strict" || value === "plain") return value;
    throw new TypeError(`TOOLS_SCHEMA metadata must be "strict" or "plain" (got ${JSON.stringify(setting)})`);
  }
  return /^openai(\.|$)/.test(provider) ? "strict" : "plain";
}
