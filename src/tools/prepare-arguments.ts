/**
 * @module
 * Argument preparation: what turns a model-friendly call into the values a tool expects,
 * before its schema validates them. For each parameter whose argument is a string, the schema's alternatives
 * are tried in order (`z.union([z.date(), z.string()])` tries the date first):
 *
 * 1. an alternative that accepts the string as it is keeps it — `message: z.string()` never changes;
 * 2. an enum alternative turns a member's name into the member (`"ERROR"` → `Severity.ERROR`);
 * 3. a date alternative turns an ISO-8601 date, date-time or time string into a `Date`;
 *
 * and when no alternative took it, **live-variable binding**: the string is replaced by the job's workspace
 * variable of that name, if there is one and its value passes the parameter's schema
 * (`sendTo("user", …)` receives the `user` object). Otherwise the string stays, and validation says why.
 *
 * Enum names and dates are converted inside objects and arrays too (a formal call's JSON cannot carry a
 * `Date`); binding applies to top-level arguments only. For formal calls, `null` for a property that may be
 * left out means "left out" — the strict provider profile makes the model send `null` for those.
 */
import type { z } from "zod";
import { enumMember } from "./enum-members.ts";
import { parseIsoDate } from "./iso-date.ts";
import { accepts, alternativesOf, schemaDef, schemaType } from "./schema-shape.ts";
import type { Tool } from "./tool.ts";
import { isPlainObject } from "./is-plain-object.ts";

/** What preparation may consult. */
export interface PrepareOptions {
  /** Reads a workspace variable by name (live-variable binding); without it, nothing is bound. */
  variable?(name: string): { value: unknown } | undefined;
  /** A formal call from the model: `null` for an optional property means it was left out. */
  formal?: boolean;
}

/** The arguments with model-friendly values converted; never changes `args` itself. */
export function prepareArguments(tool: Tool, args: Record<string, unknown>, options: PrepareOptions = {}): Record<string, unknown> {
  let prepared: Record<string, unknown> | undefined;
  for (const name of tool.parameterNames) {
    if (!Object.prototype.hasOwnProperty.call(args, name)) continue;
    const schema = tool.params.shape[name] as z.ZodType;
    const value = args[name];
    let next: unknown = value;
    let omit = false;
    if (options.formal && value === null && omittable(schema)) omit = true;
    else if (typeof value === "string") next = prepareString(schema, value, options.variable);
    else next = convertNested(schema, value, options.formal === true, 0);
    if (omit || next !== value) {
      prepared ??= { ...args };
      if (omit) delete prepared[name];
      else prepared[name] = next;
    }
  }
  return prepared ?? args;
}

// `null` may stand for "left out" only where the schema rejects null but accepts a missing value.
function omittable(schema: z.ZodType): boolean {
  return !accepts(schema, null) && accepts(schema, undefined);
}

function convertString(schema: z.ZodType, value: string): { value: unknown } | undefined {
  for (const alternative of alternativesOf(schema)) {
    if (accepts(alternative, value)) return { value };
    const member = enumMember(alternative, value);
    if (member) return member;
    if (schemaType(alternative) === "date") {
      const date = parseIsoDate(value);
      if (date && accepts(alternative, date)) return { value: date };
    }
  }
  return undefined;
}

function prepareString(schema: z.ZodType, value: string, variable: PrepareOptions["variable"]): unknown {
  const converted = convertString(schema, value);
  if (converted) return converted.value;
  const bound = variable?.(value);
  if (bound && accepts(schema, bound.value)) return bound.value;
  return value;
}

// Enum names and ISO dates inside objects and arrays; `null` → left out for formal calls. Copy on write.
function convertNested(schema: z.ZodType, value: unknown, formal: boolean, depth: number): unknown {
  if (depth > 20) return value;
  if (typeof value === "string") return convertString(schema, value)?.value ?? value;
  if (Array.isArray(value)) {
    const element = alternativesOf(schema).find((alternative) => schemaType(alternative) === "array");
    if (!element) return value;
    const inner = schemaDef(element).element as z.ZodType;
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const next = convertNested(inner, item, formal, depth + 1);
      if (next !== item) (copy ??= [...value])[index] = next;
    });
    return copy ?? value;
  }
  if (isPlainObject(value)) {
    const object = alternativesOf(schema).find((alternative) => schemaType(alternative) === "object");
    if (!object) return value;
    const shape = schemaDef(object).shape as Record<string, z.ZodType>;
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const inner = shape[key];
      if (!inner) continue;
      if (formal && item === null && omittable(inner)) {
        copy ??= { ...value };
        delete copy[key];
        continue;
      }
      const next = convertNested(inner, item, formal, depth + 1);
      if (next !== item) (copy ??= { ...value })[key] = next;
    }
    return copy ?? value;
  }
  return value;
}
