/**
 * @module
 * The members of a class the model is shown: documented members first (in the order of their docs), then
 * the public methods and getters found on the prototype chain, then an instance's own public fields — minus
 * `_`-prefixed names and whatever the class's ACL (or the job's default ACL) hides for the job's role.
 */
import { hasAccess, parseAcl, GRANT_ALL, type Acl } from "./acl.ts";
import { docsOf, type ClassDocs, type MemberDocs } from "./class-docs.ts";
import { parameterNames } from "./parameter-names.ts";
import { forModel } from "./variants.ts";

/** Whose documentation is being read: the job's agent role and the ACL for classes without one. */
export interface DocsOptions {
  /** The agent role of the job asking (for `: Role` ACL rules). */
  role?: string;
  /** The ACL of classes that have none. @default every member shown */
  defaultAcl?: Acl;
}

/** One member as documentation shows it. */
export interface ClassMember {
  name: string;
  kind: "method" | "field";
  /** Its docs, with texts already in the model's variant. */
  docs: MemberDocs | undefined;
  /** The method itself, for reading its parameter names. */
  fn: Function | undefined;
  /** The value of an instance's field, for its type. */
  sample?: { value: unknown };
}

function normalise(docs: string | MemberDocs | undefined): MemberDocs | undefined {
  if (docs === undefined) return undefined;
  const full = typeof docs === "string" ? { description: docs } : docs;
  const params = full.params && Object.fromEntries(Object.entries(full.params).map(([name, text]) => [name, forModel(text) ?? ""]));
  return {
    description: forModel(full.description) ?? "",
    ...(full.type === undefined ? {} : { type: full.type }),
    ...(params ? { params } : {}),
    ...(full.returns === undefined ? {} : { returns: forModel(full.returns) ?? "" }),
  };
}

function prototypeMembers(cls: Function): Map<string, { kind: "method" | "field"; fn?: Function }> {
  const found = new Map<string, { kind: "method" | "field"; fn?: Function }>();
  const chain: object[] = [];
  for (let proto = cls.prototype as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) chain.push(proto);
  for (const proto of chain) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === "constructor" || found.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (typeof descriptor.value === "function") found.set(name, { kind: "method", fn: descriptor.value });
      else found.set(name, { kind: "field" });
    }
  }
  return found;
}

/** The effective ACL of a class: its own `acl`, else the default. */
export function aclOf(cls: Function, options: DocsOptions): Acl {
  const own = (docsOf(cls) as ClassDocs | undefined)?.acl;
  return own === undefined ? (options.defaultAcl ?? GRANT_ALL) : parseAcl(own);
}

/** The members of `cls` the model is shown (with `instance`, its own public fields too). */
export function classMembers(cls: Function, instance: object | undefined, options: DocsOptions): ClassMember[] {
  const docs = docsOf(cls) as ClassDocs | undefined;
  const onPrototype = prototypeMembers(cls);
  const members: ClassMember[] = [];
  const seen = new Set<string>();
  const add = (name: string, member: Omit<ClassMember, "name">) => {
    if (seen.has(name) || name.startsWith("_")) return;
    seen.add(name);
    members.push({ name, ...member });
  };
  const own = instance ? Object.keys(instance) : [];
  for (const [name, raw] of Object.entries(docs?.members ?? {})) {
    const found = onPrototype.get(name);
    const memberDocs = normalise(raw);
    const field = own.includes(name) ? { sample: { value: (instance as Record<string, unknown>)[name] } } : {};
    // A documented member not on the prototype is a field, unless its type is a call signature.
    const kind = found?.kind ?? (memberDocs?.type?.startsWith("(") ? "method" : "field");
    add(name, { kind, docs: memberDocs, fn: found?.fn, ...field });
  }
  for (const [name, found] of onPrototype) add(name, { kind: found.kind, docs: undefined, fn: found.fn });
  for (const name of own) {
    const value = (instance as Record<string, unknown>)[name];
    add(name, { kind: typeof value === "function" ? "method" : "field", docs: undefined, fn: typeof value === "function" ? value : undefined, sample: { value } });
  }
  const acl = aclOf(cls, options);
  return members.filter((member) => hasAccess(acl, member.name, options.role));
}

/** A member's parameter names: from its documented params, else from its source. */
export function memberParameterNames(member: ClassMember): string[] {
  if (member.docs?.params) return Object.keys(member.docs.params);
  return member.fn ? parameterNames(member.fn) : [];
}
