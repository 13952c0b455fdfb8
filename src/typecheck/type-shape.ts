/**
 * @module
 * The type of a stored value as a small tree ({@link TypeShape}), and how it is written as TypeScript. Shapes
 * are plain data: they are made on the scheduling thread from stored variables (`stored-shape.ts`) and written
 * out on the checker's thread, where it is known which workspace classes are declared.
 *
 * Writing follows what a value's type can say for sure, and says `any` for the rest: a shape that is too deep,
 * too wide or not expressible is `any`, so a declaration never makes correct code fail.
 */

/** The type of a stored value. */
export type TypeShape =
  /** Nothing useful can be said: a tombstone, an undeclared host object, `null`, a value too large. */
  | { readonly kind: "any" }
  /** A type written as it is: `string`, `Date`, `Calendar`, `typeof findEmptySlot`. */
  | { readonly kind: "name"; readonly text: string }
  /** An instance of the workspace class stored as the variable `variable`. */
  | { readonly kind: "instance"; readonly variable: string }
  /** The value stored as the variable `variable` (shared between variables). */
  | { readonly kind: "variable"; readonly variable: string }
  | { readonly kind: "array"; readonly item: TypeShape }
  | { readonly kind: "object"; readonly fields: readonly ShapeField[] }
  /** An object used as a dictionary: `Record<string, value>`. */
  | { readonly kind: "record"; readonly value: TypeShape }
  /** `Map<key, value>`, `Set<item>`. */
  | { readonly kind: "generic"; readonly name: "Map" | "Set"; readonly args: readonly TypeShape[] }
  | { readonly kind: "union"; readonly members: readonly TypeShape[] }
  /** An error with own fields: `Error & { code: string }`. */
  | { readonly kind: "error"; readonly name: string; readonly fields: readonly ShapeField[] };

/** A field of an object shape. */
export interface ShapeField {
  readonly key: string;
  readonly shape: TypeShape;
  readonly optional?: boolean;
}

/** The shape of anything. */
export const ANY: TypeShape = Object.freeze({ kind: "any" });

/** Members a union may have before it is `any` instead. */
const MAX_UNION = 6;
/** Fields an object shape keeps; an object with more is a dictionary. */
export const MAX_FIELDS = 60;

/** A named type. */
export function named(text: string): TypeShape {
  return { kind: "name", text };
}

/**
 * One shape for values of several shapes, as an array's items or a map's values are typed: objects merge into
 * one (a field missing from some is optional), arrays merge their items, equal names collapse; `any` absorbs
 * everything, and a union grown past a few members becomes `any`.
 */
export function unionOf(shapes: readonly TypeShape[]): TypeShape {
  const flat: TypeShape[] = [];
  for (const shape of shapes) {
    if (shape.kind === "union") flat.push(...shape.members);
    else flat.push(shape);
  }
  if (flat.length === 0) return ANY;
  if (flat.some((shape) => shape.kind === "any")) return ANY;
  const objects = flat.filter((shape): shape is Extract<TypeShape, { kind: "object" }> => shape.kind === "object");
  const arrays = flat.filter((shape): shape is Extract<TypeShape, { kind: "array" }> => shape.kind === "array");
  const records = flat.filter((shape): shape is Extract<TypeShape, { kind: "record" }> => shape.kind === "record");
  const members: TypeShape[] = [];
  const seen = new Set<string>();
  const add = (shape: TypeShape) => {
    const key = JSON.stringify(shape);
    if (!seen.has(key)) {
      seen.add(key);
      members.push(shape);
    }
  };
  for (const shape of flat) {
    if (shape.kind !== "object" && shape.kind !== "array" && shape.kind !== "record") add(shape);
  }
  if (objects.length || records.length) {
    // Objects and dictionaries together are one dictionary; objects alone merge field by field.
    if (records.length) add({ kind: "record", value: unionOf([...records.map((record) => record.value), ...objects.flatMap((object) => object.fields.map((field) => field.shape))]) });
    else add(mergeObjects(objects));
  }
  if (arrays.length) add({ kind: "array", item: unionOf(arrays.map((array) => array.item)) });
  if (members.length === 1) return members[0]!;
  if (members.length > MAX_UNION) return ANY;
  return { kind: "union", members };
}

function mergeObjects(objects: ReadonlyArray<Extract<TypeShape, { kind: "object" }>>): TypeShape {
  if (objects.length === 1) return objects[0]!;
  const byKey = new Map<string, { shapes: TypeShape[]; count: number; optional: boolean }>();
  for (const object of objects) {
    for (const field of object.fields) {
      let entry = byKey.get(field.key);
      if (!entry) byKey.set(field.key, (entry = { shapes: [], count: 0, optional: false }));
      entry.shapes.push(field.shape);
      entry.count++;
      if (field.optional) entry.optional = true;
    }
  }
  if (byKey.size > MAX_FIELDS) return { kind: "record", value: unionOf([...byKey.values()].flatMap((entry) => entry.shapes)) };
  const fields: ShapeField[] = [];
  for (const [key, entry] of byKey) {
    const optional = entry.optional || entry.count < objects.length;
    fields.push({ key, shape: unionOf(entry.shapes), ...(optional ? { optional: true } : {}) });
  }
  return { kind: "object", fields };
}

/** How {@link writeShape} names what depends on the workspace. */
export interface ShapeNames {
  /** True when the workspace variable `name` is declared as a class (its instances are of type `name`). */
  isClass(name: string): boolean;
  /** True when the workspace variable `name` is declared at all (so `typeof name` means something). */
  isDeclared(name: string): boolean;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The shape as TypeScript type text. */
export function writeShape(shape: TypeShape, names: ShapeNames): string {
  switch (shape.kind) {
    case "any": return "any";
    case "name": return shape.text;
    case "instance": return names.isClass(shape.variable) ? shape.variable : "any";
    case "variable": return names.isDeclared(shape.variable) ? `typeof ${shape.variable}` : "any";
    case "array": return `${wrap(writeShape(shape.item, names), shape.item)}[]`;
    case "record": return `Record<string, ${writeShape(shape.value, names)}>`;
    case "generic": return `${shape.name}<${shape.args.map((arg) => writeShape(arg, names)).join(", ")}>`;
    case "union": return shape.members.map((member) => wrap(writeShape(member, names), member)).join(" | ");
    case "object": return shape.fields.length ? `{ ${writeFields(shape.fields, names)} }` : "Record<string, any>";
    case "error": return shape.fields.length ? `${shape.name} & { ${writeFields(shape.fields, names)} }` : shape.name;
  }
}

function writeFields(fields: readonly ShapeField[], names: ShapeNames): string {
  return fields.map((field) => `${IDENTIFIER.test(field.key) ? field.key : JSON.stringify(field.key)}${field.optional ? "?" : ""}: ${writeShape(field.shape, names)};`).join(" ");
}

function wrap(text: string, shape: TypeShape): string {
  return shape.kind === "union" || shape.kind === "error" && shape.fields.length > 0 || (shape.kind === "variable" && text !== "any") ? `(${text})` : text;
}
