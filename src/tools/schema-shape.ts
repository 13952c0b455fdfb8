/**
 * @module
 * Reading a Zod schema's shape — what argument preparation, documentation and provider payloads need to know
 * about a parameter: its alternatives in order, whether it is a date, an enum or a live object of some class,
 * its description, whether it may be left out.
 *
 * Zod keeps some of this where cloning loses it: `z.instanceof(Calendar).describe("…")` is a clone whose
 * `bag.Class` is empty, but whose `_zod.parent` is the original. So class and description lookups walk the
 * parents as well as the wrappers.
 */
import type { z } from "zod";

interface Internals {
  def: Record<string, any> & { type: string };
  bag?: Record<string, any>;
  parent?: z.ZodType;
}

function internals(schema: z.ZodType): Internals {
  return (schema as unknown as { _zod: Internals })._zod;
}

/** The schema's kind as Zod names it: `string`, `date`, `object`, `custom`, `optional`, … */
export function schemaType(schema: z.ZodType): string {
  return internals(schema).def.type;
}

/** The schema's definition object (Zod's `_zod.def`). */
export function schemaDef(schema: z.ZodType): Record<string, any> {
  return internals(schema).def;
}

const WRAPPERS = new Set(["optional", "default", "prefault", "nonoptional", "readonly", "catch", "nullable"]);

/** The schema inside wrappers that do not change what kind of value it is (`optional`, `default`, …). */
export function innerSchema(schema: z.ZodType): z.ZodType | undefined {
  const def = internals(schema).def;
  if (WRAPPERS.has(def.type)) return def.innerType as z.ZodType;
  if (def.type === "pipe") return def.in as z.ZodType;
  if (def.type === "lazy") return (def.getter as () => z.ZodType)();
  return undefined;
}

/**
 * The alternatives a value is matched against, in order: unions are flattened, wrappers removed (a
 * `nullable` adds `null` as an alternative). `z.date().optional()` → `[date]`; `z.union([z.date(), z.string()])`
 * → `[date, string]`.
 */
export function alternativesOf(schema: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 20) return [schema];
  const def = internals(schema).def;
  if (def.type === "union") return (def.options as z.ZodType[]).flatMap((option) => alternativesOf(option, depth + 1));
  const inner = innerSchema(schema);
  return inner ? alternativesOf(inner, depth + 1) : [schema];
}

/** The class a `z.instanceof(Class)` schema (described, wrapped or not) checks for, if any. */
export function instanceClassOf(schema: z.ZodType): Function | undefined {
  for (let current: z.ZodType | undefined = schema, steps = 0; current && steps < 50; steps++) {
    const zod = internals(current);
    const cls = zod.bag?.Class;
    if (typeof cls === "function") return cls;
    current = zod.parent ?? innerSchema(current);
  }
  return undefined;
}

/** The schema's description (`.describe(…)`), looked up through wrappers and clones. */
export function descriptionOf(schema: z.ZodType): string | undefined {
  for (let current: z.ZodType | undefined = schema, steps = 0; current && steps < 50; steps++) {
    const text = (current as { description?: string }).description;
    if (typeof text === "string" && text.trim()) return text;
    current = internals(current).parent ?? innerSchema(current);
  }
  return undefined;
}

/** True when the parameter may be left out (`optional()`, `default(…)`, or accepting `undefined`). */
export function isOptionalSchema(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

/** The default a `.default(…)` parameter takes, if it has one. */
export function defaultOf(schema: z.ZodType): { value: unknown } | undefined {
  for (let current: z.ZodType | undefined = schema, steps = 0; current && steps < 20; steps++) {
    const def = internals(current).def;
    if (def.type === "default" || def.type === "prefault") {
      try {
        return { value: def.defaultValue };
      } catch {
        return undefined;
      }
    }
    current = innerSchema(current);
  }
  return undefined;
}

/** True when `value` passes `schema` (without throwing for schemas that need async parsing). */
export function accepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}
