/**
 * @module
 * The type of a stored workspace variable, read from its codec text (`workspace/codec/codec.ts`): primitives
 * widen to their types, objects are typed by their fields, arrays by the union of their items, `Date`, `Map`,
 * `Set`, typed arrays by name; a handle by what the job knows of its host object (a binding's or an exposed
 * object's class, a tool); an instance of a workspace class by that class. What cannot be said for sure — a
 * tombstone, `null` or `undefined` (a variable that will be given a value later), an empty collection, a value
 * too deep or too large — is `any`, so a declaration made from a stored value never refuses correct code.
 *
 * Texts are read defensively: they were checked when stored, but anything unexpected is `any`, never an error.
 */
import { ANY, MAX_FIELDS, named, unionOf, type ShapeField, type TypeShape } from "./type-shape.ts";

/** The type of a host object a handle refers to, by its reference key (`binding:calendar`, `x:Meeting:1`, `tool:f`). */
export type HandleShapes = (key: string) => TypeShape;

/** Nesting followed before a value is `any`. */
const MAX_DEPTH = 6;
/** Items of one array (or entries of a map or set) read; the rest are assumed alike. */
const MAX_ITEMS = 2_000;
/** Nodes read for one variable before the rest is `any`. */
const MAX_NODES = 20_000;

const ERROR_NAMES = new Set(["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]);
const TYPED_ARRAYS = new Set([
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
]);

interface Graph {
  readonly v: unknown;
  readonly o: readonly unknown[];
}

function asGraph(text: string): Graph | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || !("v" in parsed)) return undefined;
  const nodes = (parsed as { o?: unknown }).o;
  return { v: (parsed as { v: unknown }).v, o: Array.isArray(nodes) ? nodes : [] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What a stored variable holds, for its declaration: a value of some {@link TypeShape}; a function or class
 * kept as its source (`definition`: typed by the cell that declared it); or nothing usable (`lost`: a
 * tombstone, a text that does not read).
 */
export interface StoredType {
  readonly holds: "value" | "definition" | "lost";
  readonly shape: TypeShape;
}

const LOST: StoredType = Object.freeze({ holds: "lost", shape: ANY });
const DEFINITION: StoredType = Object.freeze({ holds: "definition", shape: ANY });

/** The type of a variable stored as `text`. */
export function storedType(text: string, handles: HandleShapes): StoredType {
  const graph = asGraph(text);
  if (!graph) return LOST;
  const root = graph.v;
  if (isRecord(root)) {
    if (root.$ === "tomb") return LOST;
    const entry = root.$ === "ref" && typeof root.i === "number" ? graph.o[root.i] : undefined;
    if (isRecord(entry) && entry.t === "fn") return DEFINITION;
    if (isRecord(entry) && entry.t === "tomb") return LOST;
  }
  return { holds: "value", shape: shapeOf(graph, handles) };
}

/** The shape of a string, number or boolean; `any` for `null` and what JSON cannot hold; undefined for an object. */
function scalarShape(item: unknown): TypeShape | undefined {
  switch (typeof item) {
    case "string": return named("string");
    case "number": return named("number");
    case "boolean": return named("boolean");
    case "object": return item === null ? ANY : undefined;
    default: return ANY;
  }
}

function shapeOf(graph: Graph, handles: HandleShapes): TypeShape {
  let budget = MAX_NODES;
  // Nodes being read (a cycle is `any`: the type would have to name itself).
  const open = new Set<number>();

  const value = (item: unknown, depth: number): TypeShape => {
    if (--budget < 0) return ANY;
    const scalar = scalarShape(item);
    if (scalar !== undefined) return scalar;
    if (!isRecord(item)) return ANY;
    switch (item.$) {
      case "num": return named("number");
      case "big": return named("bigint");
      case "h": return typeof item.k === "string" ? handles(item.k) : ANY;
      case "ref": return typeof item.i === "number" ? node(item.i, depth) : ANY;
      // A value shared with another variable: the root of that variable is typed by it; a part of it is not named.
      case "xref": return item.i === 0 && typeof item.n === "string" ? { kind: "variable", variable: item.n } : ANY;
      default: return ANY; // undefined, a tombstone, an opaque value
    }
  };

  const node = (index: number, depth: number): TypeShape => {
    if (depth > MAX_DEPTH || open.has(index)) return ANY;
    const entry = graph.o[index];
    if (!isRecord(entry)) return ANY;
    open.add(index);
    try {
      return nodeShape(entry, depth + 1);
    } finally {
      open.delete(index);
    }
  };

  const fieldsOf = (entry: Record<string, unknown>, depth: number): ShapeField[] | undefined => {
    const pairs = Array.isArray(entry.p) ? entry.p : [];
    if (pairs.length > MAX_FIELDS) return undefined;
    const fields: ShapeField[] = [];
    for (const pair of pairs) {
      if (!Array.isArray(pair) || typeof pair[0] !== "string") return undefined;
      fields.push({ key: pair[0], shape: value(pair[1], depth) });
    }
    return fields;
  };

  const items = (list: unknown, depth: number): TypeShape => {
    if (!Array.isArray(list) || list.length === 0) return ANY;
    const shapes: TypeShape[] = [];
    const count = Math.min(list.length, MAX_ITEMS);
    for (let i = 0; i < count; i++) {
      const item = list[i];
      if (isRecord(item) && item.$ === "hole") continue;
      shapes.push(value(item, depth));
    }
    return unionOf(shapes);
  };

  // Plain data written whole (a `data` node): JSON as it is, no tag read in it.
  const plain = (item: unknown, depth: number): TypeShape => {
    if (--budget < 0) return ANY;
    const scalar = scalarShape(item);
    if (scalar !== undefined) return scalar;
    // As deep as a node graph is followed: the root's own object is one level below its node's.
    if (typeof item !== "object" || item === null || depth > MAX_DEPTH + 1) return ANY;
    if (Array.isArray(item)) {
      if (item.length === 0) return { kind: "array", item: ANY };
      const shapes: TypeShape[] = [];
      const count = Math.min(item.length, MAX_ITEMS);
      for (let i = 0; i < count; i++) shapes.push(plain(item[i], depth + 1));
      return { kind: "array", item: unionOf(shapes) };
    }
    const keys = Object.keys(item);
    if (keys.length > MAX_FIELDS) return { kind: "record", value: ANY };
    return { kind: "object", fields: keys.map((key) => ({ key, shape: plain((item as Record<string, unknown>)[key], depth + 1) })) };
  };

  const nodeShape = (entry: Record<string, unknown>, depth: number): TypeShape => {
    switch (entry.t) {
      case "obj": {
        if (entry.c !== undefined) return classOf(entry.c);
        const fields = fieldsOf(entry, depth);
        if (!fields) return { kind: "record", value: ANY };
        return { kind: "object", fields };
      }
      case "arr": return { kind: "array", item: items(entry.v, depth) };
      case "date": return named("Date");
      case "re": return named("RegExp");
      case "ab": return named("ArrayBuffer");
      case "data": return typeof entry.v === "object" && entry.v !== null ? plain(entry.v, depth) : ANY;
      case "ta": return typeof entry.k === "string" && TYPED_ARRAYS.has(entry.k) ? named(entry.k) : ANY;
      case "set": return { kind: "generic", name: "Set", args: [items(entry.v, depth)] };
      case "map": {
        const pairs = Array.isArray(entry.v) ? entry.v.slice(0, MAX_ITEMS) : [];
        const keys = pairs.map((pair) => (Array.isArray(pair) ? value(pair[0], depth) : ANY));
        const values = pairs.map((pair) => (Array.isArray(pair) ? value(pair[1], depth) : ANY));
        return { kind: "generic", name: "Map", args: [unionOf(keys), unionOf(values)] };
      }
      case "err": {
        if (entry.c !== undefined) return classOf(entry.c);
        const name = typeof entry.name === "string" && ERROR_NAMES.has(entry.name) ? entry.name : "Error";
        const fields = fieldsOf(entry, depth);
        return fields ? { kind: "error", name, fields } : named(name);
      }
      default:
        // A function or class without its declaration, a tombstone node.
        return ANY;
    }
  };

  // An instance of a workspace class: the class is the value of another variable (an `xref` to its root).
  const classOf = (reference: unknown): TypeShape => {
    if (isRecord(reference) && reference.$ === "xref" && reference.i === 0 && typeof reference.n === "string") {
      return { kind: "instance", variable: reference.n };
    }
    return ANY;
  };

  return value(graph.v, 0);
}
