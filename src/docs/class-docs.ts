/**
 * @module
 * Documentation of application classes and functions for the model. A class in a job's
 * scope (`calendar`'s class `Calendar`) is documented with {@link describeClass} or a static `statekDocs`
 * property; `brief()`/`docstr()` show it, filtered by its ACL. Documentation is kept beside the class (a
 * weak map keyed by it), so it is defined where the class is, in every process.
 *
 * @example
 * ```ts
 * describeClass(Calendar, {
 *   description: "The user's calendar. Read it directly; change meetings with moveMeeting.",
 *   members: {
 *     owner: { description: "Whose calendar it is.", type: "string" },
 *     eventsFor: { description: "The meetings of a day, in start order.", type: "(day: Date): Meeting[]", params: { day: "Any time on that day (UTC)." } },
 *     seedDay: "Replaces a day's meetings.",
 *   },
 *   acl: "+*\n-seedDay",
 * });
 * ```
 */

import { kindOf } from "../tools/with-article.ts";
import { DEFAULT_REGISTRIES, currentRegistries } from "../registries/registries.ts";

/** Documentation of one member (method, getter or field) of a class. */
export interface MemberDocs {
  /** What it is or does. The first paragraph is its brief. */
  description: string;
  /** Its TypeScript type: `(day: Date): Meeting[]` for a method, `string` for a field. */
  type?: string;
  /** Parameter descriptions by name, in order (their names make the signature when `type` is absent). */
  params?: Readonly<Record<string, string>>;
  /** What a method returns. */
  returns?: string;
}

/** Documentation of a class. */
export interface ClassDocs {
  /** What the class is. The first paragraph is its brief. */
  description: string;
  /** Its members by name; a string is a member's description. */
  members?: Readonly<Record<string, string | MemberDocs>>;
  /** `STATEK-ACL` rules for which members the model is shown (see `acl.ts`). @default the job's default ACL */
  acl?: string;
}

/** Documentation of a function in scope (not a tool). */
export interface FunctionDocs {
  description: string;
  /** Its TypeScript signature after the name: `(slot: Slot): string`. */
  type?: string;
  params?: Readonly<Record<string, string>>;
  returns?: string;
}


function checkMember(owner: string, name: string, docs: unknown): void {
  if (typeof docs === "string") {
    if (!docs.trim()) throw new TypeError(`describeClass(${owner}): member '${name}' has an empty description`);
    return;
  }
  if (typeof docs !== "object" || docs === null || typeof (docs as MemberDocs).description !== "string" || !(docs as MemberDocs).description.trim()) {
    throw new TypeError(`describeClass(${owner}): member '${name}' needs a description (a string, or { description, type?, params?, returns? })`);
  }
}

/**
 * Documents a class (or a function) for the model, in every `Statek` of the process (`Statek.open({ classDocs
 * })` documents for one instance, and wins); returns it. Throws a `TypeError` for malformed docs. (Not called
 * `describe`, which test runners declare as a global.)
 */
export function describeClass<T extends Function>(target: T, docs: ClassDocs | FunctionDocs): T {
  checkClassDocs(target, docs, "describeClass");
  DEFAULT_REGISTRIES.setDocs(target, docs);
  return target;
}

/** Checks the docs of `target`; a `TypeError` naming `label` for malformed ones. */
export function checkClassDocs(target: Function, docs: ClassDocs | FunctionDocs, label: string): void {
  if (typeof target !== "function") throw new TypeError(`${label}: expected a class or function, got ${kindOf(target)}`);
  const owner = target.name || "(anonymous)";
  if (typeof docs !== "object" || docs === null || typeof docs.description !== "string" || !docs.description.trim()) {
    throw new TypeError(`describeClass(${owner}): description must not be empty`);
  }
  const members = (docs as ClassDocs).members;
  if (members !== undefined) {
    if (typeof members !== "object" || members === null) throw new TypeError(`describeClass(${owner}): members must be an object`);
    for (const [name, member] of Object.entries(members)) checkMember(owner, name, member);
  }
  const acl = (docs as ClassDocs).acl;
  if (acl !== undefined && typeof acl !== "string") throw new TypeError(`describeClass(${owner}): acl must be a string of rules`);
}

/** The documentation of a class or function: from {@link describeClass}, else its own static `statekDocs`. */
export function docsOf(target: Function): ClassDocs | FunctionDocs | undefined {
  // Only checked docs are registered (describeClass, Statek.open({ classDocs })).
  const described = currentRegistries().docsOf(target) as ClassDocs | FunctionDocs | undefined;
  if (described) return described;
  if (Object.prototype.hasOwnProperty.call(target, "statekDocs")) {
    const docs = (target as unknown as { statekDocs: unknown }).statekDocs;
    if (typeof docs === "object" && docs !== null && typeof (docs as ClassDocs).description === "string") return docs as ClassDocs;
  }
  return undefined;
}

/** True when `fn` is a class (by its source, or because its docs list members). */
export function isClass(fn: Function): boolean {
  let source = "";
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    // A revoked proxy or exotic function: not a class we can document.
  }
  if (/^class\b/.test(source)) return true;
  const docs = docsOf(fn) as ClassDocs | undefined;
  return docs?.members !== undefined || docs?.acl !== undefined;
}
