/**
 * @module
 * The type of a host value — a context value, a binding, a sample field of a documented class — as a
 * {@link TypeShape}: plain data by structure, an object of a class by that class's name (the class is handed
 * to `declareClass`, which says whether it could be declared), a tool by `typeof` its name, anything else
 * `any`. Getters are never run: only own data properties are read.
 */
import { isTool } from "../tools/is-tool.ts";
import { ANY, MAX_FIELDS, named, unionOf, type ShapeField, type TypeShape } from "./type-shape.ts";

/** Declares a class for the job (once); returns the name to use, or `undefined` when it cannot be declared. */
export type DeclareClass = (cls: Function, instance: object | undefined) => string | undefined;

const MAX_DEPTH = 5;
const MAX_ITEMS = 200;

/** The shape of host value `value`. */
export function hostShape(value: unknown, declareClass: DeclareClass, depth = 0): TypeShape {
  if (value === null || value === undefined) return ANY;
  switch (typeof value) {
    case "string": return named("string");
    case "number": return named("number");
    case "boolean": return named("boolean");
    case "bigint": return named("bigint");
    case "function": return ANY;
    case "object": break;
    default: return ANY;
  }
  if (depth > MAX_DEPTH) return ANY;
  if (isTool(value)) return named(`typeof ${value.name}`);
  if (Array.isArray(value)) {
    return { kind: "array", item: value.length ? unionOf(value.slice(0, MAX_ITEMS).map((item) => hostShape(item, declareClass, depth + 1))) : ANY };
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return plainObject(value, declareClass, depth);
  if (value instanceof Date) return named("Date");
  if (value instanceof RegExp) return named("RegExp");
  if (value instanceof Map) {
    const entries = [...value].slice(0, MAX_ITEMS);
    return { kind: "generic", name: "Map", args: [unionOf(entries.map(([key]) => hostShape(key, declareClass, depth + 1))), unionOf(entries.map(([, item]) => hostShape(item, declareClass, depth + 1)))] };
  }
  if (value instanceof Set) return { kind: "generic", name: "Set", args: [unionOf([...value].slice(0, MAX_ITEMS).map((item) => hostShape(item, declareClass, depth + 1)))] };
  const cls = proto?.constructor;
  if (typeof cls !== "function") return ANY;
  const name = declareClass(cls, value);
  return name ? named(name) : ANY;
}

function plainObject(value: object, declareClass: DeclareClass, depth: number): TypeShape {
  const fields: ShapeField[] = [];
  const keys = Object.keys(value);
  if (keys.length === 0) return { kind: "record", value: ANY };
  if (keys.length > MAX_FIELDS) return { kind: "record", value: ANY };
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    fields.push({ key, shape: descriptor && "value" in descriptor ? hostShape(descriptor.value, declareClass, depth + 1) : ANY });
  }
  return { kind: "object", fields };
}
