/**
 * @module
 * Tool parameters from a JSON Schema object — an MCP server's tool, an AI SDK tool given `jsonSchema()` or a
 * Standard Schema. The result is the Zod object schema `tool()` takes, so validation, argument preparation,
 * provider payloads and the declarations the model reads all take their one usual path. Each property is
 * converted with Zod's own `z.fromJSONSchema`; a property Zod cannot express (`if`/`then`, `not`, remote
 * `$ref`s) is accepted as any value and says so in its description rather than failing the whole tool.
 * Property names that are not identifiers (`user-id`) get identifier names, mapped back on each call.
 */
import { z } from "zod";
import { isIdentifier } from "./is-identifier.ts";
import { isPlainObject } from "./is-plain-object.ts";
import { RESERVED_PARAMETER_NAMES, type ToolParams } from "./tool.ts";
import { kindOf } from "./with-article.ts";
import { errorMessage } from "../errors/error-text.ts";

/** Parameters made from a JSON Schema, with the way back to the schema's property names. */
export interface JsonSchemaParams {
  params: ToolParams;
  /** Parameter name → property name, for every property (the same name when it was an identifier). */
  propertyOf: ReadonlyMap<string, string>;
  /** Properties whose schema could not be converted (accepted as any value), with why. */
  unchecked: ReadonlyMap<string, string>;
}

/** What a parameter without a description of its own says. */
export const NO_DESCRIPTION = "(no description)";

/**
 * Converts an object JSON Schema into tool parameters. Throws a `TypeError` starting with `label` when `schema`
 * is not a JSON Schema of an object.
 */
export function paramsFromJsonSchema(schema: unknown, label: string): JsonSchemaParams {
  if (!isPlainObject(schema)) throw new TypeError(`${label}: the input schema must be a JSON Schema object, got ${kindOf(schema)}`);
  if (schema.type !== undefined && schema.type !== "object") {
    throw new TypeError(`${label}: the input schema must describe an object (type "object"), got type ${JSON.stringify(schema.type)}`);
  }
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) throw new TypeError(`${label}: the input schema's properties must be an object, got ${kindOf(properties)}`);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
  // Definitions travel with each property, so its local `$ref`s resolve.
  const definitions = {
    ...(schema.$schema === undefined ? {} : { $schema: schema.$schema }),
    ...(schema.$defs === undefined ? {} : { $defs: schema.$defs }),
    ...(schema.definitions === undefined ? {} : { definitions: schema.definitions }),
  };
  // `#/definitions/…` references are draft 7's; without a `$schema` saying so, the converter would look in `$defs`.
  const defaultTarget = schema.$defs === undefined && schema.definitions !== undefined ? "draft-7" : "draft-2020-12";
  const shape: Record<string, z.ZodType> = {};
  const propertyOf = new Map<string, string>();
  const unchecked = new Map<string, string>();
  for (const [property, propertySchema] of Object.entries(properties)) {
    const name = parameterName(property, propertyOf);
    propertyOf.set(name, property);
    let converted: z.ZodType;
    try {
      // The converter checks what it is given (a JSON round-trip, then each keyword); it takes it typed as a schema.
      type Input = Parameters<typeof z.fromJSONSchema>[0];
      if (typeof propertySchema === "boolean") converted = z.fromJSONSchema(propertySchema);
      else if (isPlainObject(propertySchema)) converted = z.fromJSONSchema({ ...definitions, ...propertySchema } as Input, { defaultTarget });
      else throw new Error(`its schema is ${kindOf(propertySchema)}, not a JSON Schema`);
    } catch (error) {
      const why = errorMessage(error);
      unchecked.set(name, why);
      converted = z.unknown();
    }
    const given = isPlainObject(propertySchema) ? propertySchema : {};
    const text = typeof given.description === "string" && given.description.trim() ? given.description
      : typeof given.title === "string" && given.title.trim() ? given.title : NO_DESCRIPTION;
    const notes = [name !== property ? `(the server's "${property}")` : "", unchecked.has(name) ? "(any value: its schema could not be checked here)" : ""];
    const optional = !required.has(property) && given.default === undefined ? converted.optional() : converted;
    shape[name] = optional.describe([text, ...notes].filter(Boolean).join(" "));
  }
  const params = schema.additionalProperties === false ? z.strictObject(shape) : z.looseObject(shape);
  return { params, propertyOf, unchecked };
}

/** Named arguments as the schema names its properties (parameters left out stay out). */
export function toSchemaArguments(args: Readonly<Record<string, unknown>>, propertyOf: ReadonlyMap<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    out[propertyOf.get(name) ?? name] = value;
  }
  return out;
}

/** An identifier for `property`, unique among `taken`. */
function parameterName(property: string, taken: ReadonlyMap<string, string>): string {
  let base = isIdentifier(property) ? property : property.replace(/[^\w$]/g, "_").replace(/^(?=\d)/, "_") || "_";
  if (RESERVED_PARAMETER_NAMES.includes(base)) base = `${base}_`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  return name;
}
