/**
 * @module
 * The classes a Zod schema names (`z.instanceof(Calendar)`, at any depth: in objects, arrays, unions, …), so
 * that the job's declarations declare every class its tools' signatures mention.
 */
import type { z } from "zod";
import { instanceClassOf, schemaDef, schemaType } from "../tools/schema-shape.ts";

const MAX_DEPTH = 10;

/** The classes `schema` names, each once. */
export function schemaClasses(schema: z.ZodType): Function[] {
  const found = new Set<Function>();
  visit(schema, found, 0);
  return [...found];
}

function visit(schema: z.ZodType, found: Set<Function>, depth: number): void {
  if (depth > MAX_DEPTH || typeof schema !== "object" || schema === null) return;
  const def = schemaDef(schema);
  const next = (child: unknown) => {
    if (typeof child === "object" && child !== null) visit(child as z.ZodType, found, depth + 1);
  };
  switch (schemaType(schema)) {
    case "custom": {
      const cls = instanceClassOf(schema);
      if (cls) found.add(cls);
      return;
    }
    case "object": for (const child of Object.values(def.shape as Record<string, unknown>)) next(child); return;
    case "array": next(def.element); return;
    case "union": for (const option of def.options as unknown[]) next(option); return;
    case "intersection": next(def.left); next(def.right); return;
    case "record": case "map": next(def.keyType); next(def.valueType); return;
    case "set": next(def.valueType); return;
    case "tuple": for (const item of def.items as unknown[]) next(item); return;
    case "optional": case "default": case "prefault": case "nonoptional": case "readonly": case "catch": case "nullable": case "promise":
      next(def.innerType); return;
    case "pipe": next(def.in); return;
    case "lazy": next((def.getter as () => unknown)()); return;
  }
}
