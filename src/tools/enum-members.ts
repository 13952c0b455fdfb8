/**
 * @module
 * Enums a parameter can name by member (argument preparation step 1). Two kinds:
 *
 * - a TypeScript `enum` or a const object used as the schema, `z.enum(Severity)`: the model may write the
 *   member's *name* (`"ERROR"`) and the tool receives its value (`Severity.ERROR`, e.g. `"error"` or `3`);
 * - an application class whose instances are the members, registered with {@link registerEnum} and used as
 *   `z.instanceof(Severity)`: the name becomes the member object.
 *
 * Registration is kept beside the class (a weak map keyed by it), not in a list of tools.
 */
import type { z } from "zod";
import { DEFAULT_REGISTRIES, currentRegistries } from "../registries/registries.ts";
import { instanceClassOf, schemaDef, schemaType } from "./schema-shape.ts";

/**
 * How many enum registrations the current registries have seen: a text made from schemas (a tool's
 * declaration names a registered class's members) and kept for reuse is stale once this has moved.
 */
export function enumRegistrations(): number {
  return currentRegistries().enumChanges;
}

/**
 * Lets a string naming a member stand for that member, for parameters declared `z.instanceof(cls)`, in every
 * `Statek` of the process (`Statek.open({ enums })` registers for one instance). `members` defaults to the
 * class's static properties that hold instances of it.
 *
 * @example
 * ```ts
 * class Severity {
 *   static readonly INFO = new Severity(1);
 *   static readonly ERROR = new Severity(3);
 *   readonly level: number;
 *   constructor(level: number) { this.level = level; }
 * }
 * registerEnum(Severity);  // alert("ERROR") now receives Severity.ERROR for `level: z.instanceof(Severity)`
 * ```
 */
export function registerEnum<T extends Function>(cls: T, members?: Readonly<Record<string, unknown>>): T {
  DEFAULT_REGISTRIES.setEnum(cls, enumMembersFor(cls, members, "registerEnum"));
  return cls;
}

/** The members of enum class `cls`: `members`, else its static instances; a `TypeError` naming `label` when there are none. */
export function enumMembersFor(cls: Function, members: Readonly<Record<string, unknown>> | undefined, label: string): Readonly<Record<string, unknown>> {
  if (typeof cls !== "function") throw new TypeError(`${label}: expected a class`);
  const found: Record<string, unknown> = {};
  if (members) Object.assign(found, members);
  else {
    for (const key of Object.getOwnPropertyNames(cls)) {
      const value = (cls as unknown as Record<string, unknown>)[key];
      if (typeof value === "object" && value !== null && value instanceof (cls as unknown as new () => object)) found[key] = value;
    }
  }
  if (Object.keys(found).length === 0) throw new TypeError(`${label}(${cls.name}): no members (pass them, or give the class static instances)`);
  return Object.freeze(found);
}

/** The members by name of an enum schema alternative (`z.enum(…)` or a registered class), else `undefined`. */
export function enumMembersOf(schema: z.ZodType): Readonly<Record<string, unknown>> | undefined {
  const type = schemaType(schema);
  if (type === "enum") {
    const entries = schemaDef(schema).entries as Record<string, unknown>;
    const values = new Set(Object.values(entries).filter((value) => typeof value !== "string" || !isReverseKey(entries, value)));
    const members: Record<string, unknown> = {};
    // A numeric TypeScript enum also maps values back to names (`{ 0: "LOW", LOW: 0 }`): only names count.
    for (const [name, value] of Object.entries(entries)) if (values.has(value)) members[name] = value;
    return members;
  }
  if (type === "custom") {
    const cls = instanceClassOf(schema);
    return cls ? currentRegistries().enumOf(cls) : undefined;
  }
  return undefined;
}

// In `{ 0: "LOW", LOW: 0 }`, "LOW" is a reverse-mapping value: the key 0 is numeric and LOW maps back to it.
function isReverseKey(entries: Record<string, unknown>, value: string): boolean {
  return Object.entries(entries).some(([key, member]) => member === value && /^-?\d+$/.test(key) && entries[value] === Number(key));
}

/** The member named `name` of an enum schema alternative, if it is one and has that member. */
export function enumMember(schema: z.ZodType, name: string): { value: unknown } | undefined {
  const members = enumMembersOf(schema);
  if (!members || !Object.prototype.hasOwnProperty.call(members, name)) return undefined;
  return { value: members[name] };
}
