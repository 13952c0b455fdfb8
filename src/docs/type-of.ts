/**
 * @module
 * The TypeScript type of a Zod schema, as the model should read it in signatures and declarations:
 * `Calendar` for `z.instanceof(Calendar)`, `Date`, `"INFO" | "ERROR"` for an enum (the model may write a
 * member's name), `{ start: Date; end: Date }`, `number[]`.
 */
import type { z } from "zod";
import { enumMembersOf } from "../tools/enum-members.ts";
import { instanceClassOf, isOptionalSchema, schemaDef, schemaType } from "../tools/schema-shape.ts";

function wrap(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** How {@link typeOf} writes a type. */
export interface TypeOfOptions {
  /**
   * For the cell type checker (`typecheck/`): accept what argument preparation accepts and say `any` where the
   * type is not known, so a declaration never refuses code that runs — an enum is its members' names *or* values,
   * and an unknown value (`z.unknown()`, a schema this cannot read) is `any`. @default false (the model's view)
   */
  checking?: boolean;
}

/** A TypeScript type for a schema. */
export function typeOf(schema: z.ZodType, options: TypeOfOptions = {}, depth = 0): string {
  const unknown = options.checking ? "any" : "unknown";
  if (depth > 8) return unknown;
  const def = schemaDef(schema);
  const inner = (key: string) => typeOf(def[key] as z.ZodType, options, depth + 1);
  switch (schemaType(schema)) {
    case "string": case "template_literal": return "string";
    case "number": case "int": case "nan": return "number";
    case "boolean": return "boolean";
    case "bigint": return "bigint";
    case "symbol": return "symbol";
    case "date": return "Date";
    case "null": return "null";
    case "undefined": case "void": return "undefined";
    case "never": return "never";
    case "any": case "unknown": return unknown;
    case "literal": return (def.values as unknown[]).map((value) => JSON.stringify(value)).join(" | ");
    case "enum": return enumType(enumMembersOf(schema) ?? {}, options) || "never";
    case "array": return `${wrap(inner("element"))}[]`;
    case "optional": case "default": case "prefault": case "nonoptional": case "readonly": case "catch":
      return inner("innerType");
    case "nullable": return `${inner("innerType")} | null`;
    case "union": return (def.options as z.ZodType[]).map((option) => typeOf(option, options, depth + 1)).join(" | ");
    case "intersection": return `${wrap(inner("left"))} & ${wrap(inner("right"))}`;
    case "record": return `Record<${inner("keyType")}, ${inner("valueType")}>`;
    case "map": return `Map<${inner("keyType")}, ${inner("valueType")}>`;
    case "set": return `Set<${inner("valueType")}>`;
    case "promise": return `Promise<${inner("innerType")}>`;
    case "tuple": return `[${(def.items as z.ZodType[]).map((item) => typeOf(item, options, depth + 1)).join(", ")}]`;
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.entries(shape).map(([key, value]) => `${propertyName(key)}${isOptionalSchema(value) ? "?" : ""}: ${typeOf(value, options, depth + 1)}`);
      return fields.length ? `{ ${fields.join("; ")} }` : "{}";
    }
    case "custom": {
      const cls = instanceClassOf(schema);
      if (!cls) return unknown;
      const members = enumMembersOf(schema);
      return members ? [cls.name, enumType(members, options)].join(" | ") : cls.name || "object";
    }
    case "pipe": return inner("in");
    case "lazy": return typeOf((def.getter as () => z.ZodType)(), options, depth + 1);
    case "function": return "Function";
    default: return unknown;
  }
}

/** A property name as TypeScript writes it: quoted unless it is an identifier. */
function propertyName(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** An enum's members by name (`"INFO" | "ERROR"`); for checking, their values too (`… | 0 | 1`). */
function enumType(members: Readonly<Record<string, unknown>>, options: TypeOfOptions): string {
  const names = Object.keys(members).map((name) => JSON.stringify(name));
  if (!options.checking) return names.join(" | ");
  const values = Object.values(members)
    .filter((value) => typeof value === "string" || (typeof value === "number" && Number.isFinite(value)))
    .map((value) => JSON.stringify(value));
  return [...new Set([...names, ...values])].join(" | ");
}
