/**
 * @module
 * `brief(x, method?)` and `docstr(x, method?)` as text: documentation of a tool, a host
 * function, a class, an object (its class) or one method, for the model. `brief` is short (signature lines
 * and first paragraphs); `docstr` is TypeScript declarations with JSDoc. What cannot be documented is an
 * `Error` with a readable message (`Calendar has no method 'foo'`).
 */
import { isTool, type Tool } from "../tools/tool.ts";
import { OpaqueValue } from "../tools/llm-repr.ts";
import { withArticle } from "../tools/with-article.ts";
import { classMembers, memberParameterNames, type ClassMember, type DocsOptions } from "./class-members.ts";
import { docsOf, isClass, type FunctionDocs } from "./class-docs.ts";
import { parameterNames } from "./parameter-names.ts";
import { briefOf, jsDoc, toolBrief, toolDeclaration } from "./tool-docs.ts";
import { forModel } from "./variants.ts";

export type { DocsOptions } from "./class-members.ts";

type Target =
  | { kind: "tool"; tool: Tool }
  | { kind: "class"; cls: Function; instance: object | undefined }
  | { kind: "function"; fn: Function };

function describeKind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "a plain object";
  return withArticle(typeof value);
}

function targetOf(value: unknown): Target {
  if (isTool(value)) return { kind: "tool", tool: value };
  if (typeof value === "function") return isClass(value) ? { kind: "class", cls: value, instance: undefined } : { kind: "function", fn: value };
  if (value instanceof OpaqueValue) {
    throw new Error(`${value.description} lives in the workspace; brief() and docstr() document host tools, functions, classes and objects`);
  }
  if (typeof value === "object" && value !== null) {
    const proto = Object.getPrototypeOf(value);
    const cls = proto && proto !== Object.prototype ? proto.constructor : undefined;
    if (typeof cls === "function" && !Array.isArray(value)) return { kind: "class", cls, instance: value };
  }
  throw new Error(`brief() and docstr() document tools, functions, classes and objects of classes; got ${describeKind(value)}`);
}

function nameOf(target: Target): string {
  if (target.kind === "tool") return target.tool.name;
  return (target.kind === "class" ? target.cls.name : target.fn.name) || "(anonymous)";
}

function memberOf(target: Target, method: string, options: DocsOptions): ClassMember {
  if (target.kind !== "class") throw new Error(`${nameOf(target)} is not a class`);
  const member = classMembers(target.cls, target.instance, options).find((candidate) => candidate.name === method);
  if (!member) throw new Error(`${nameOf(target)} has no method '${method}'`);
  return member;
}

function headline(signature: string, description: string | undefined): string {
  const brief = description ? briefOf(description) : "";
  return brief ? `${signature} — ${brief}` : signature;
}

function memberSignature(member: ClassMember, withTypes: boolean): string {
  const type = member.docs?.type;
  if (member.kind === "field") return withTypes ? `${member.name}: ${type ?? sampleType(member)}` : member.name;
  if (withTypes && type) return type.startsWith("(") ? `${member.name}${type}` : `${member.name}: ${type}`;
  return `${member.name}(${memberParameterNames(member).join(", ")})`;
}

function sampleType(member: ClassMember): string {
  if (!member.sample) return "unknown";
  const value = member.sample.value;
  if (value === null) return "null";
  if (value instanceof Date) return "Date";
  if (Array.isArray(value)) return "unknown[]";
  if (typeof value === "object") return Object.getPrototypeOf(value)?.constructor?.name || "object";
  return typeof value;
}

function memberBrief(member: ClassMember, owner?: string): string {
  const signature = `${owner ? `${owner}.` : ""}${memberSignature(member, false)}`;
  const line = headline(signature, member.docs?.description);
  return member.docs?.returns ? `${line}\n    Returns: ${member.docs.returns}` : line;
}

function memberDeclaration(member: ClassMember): string {
  const docs = member.docs;
  const signature = memberSignature(member, true);
  const line = `  ${signature};`;
  if (!docs?.description) return line;
  const params = Object.entries(docs.params ?? {});
  return `${jsDoc(docs.description, params, docs.returns, "  ")}\n${line}`;
}

function functionDocs(fn: Function): FunctionDocs | undefined {
  const docs = docsOf(fn) as FunctionDocs | undefined;
  return docs && { ...docs, description: forModel(docs.description) ?? "", ...(docs.returns ? { returns: forModel(docs.returns) ?? "" } : {}) };
}

function functionParameterNames(fn: Function, docs: FunctionDocs | undefined): string[] {
  return docs?.params ? Object.keys(docs.params) : parameterNames(fn);
}

/** The short documentation of `value` (or of its `method`), as `brief()` prints it. Throws readable `Error`s. */
export function briefDocs(value: unknown, method: string | undefined, options: DocsOptions = {}): string {
  const target = targetOf(value);
  if (method) return memberBrief(memberOf(target, method, options), nameOf(target));
  switch (target.kind) {
    case "tool": return toolBrief(target.tool);
    case "function": {
      const docs = functionDocs(target.fn);
      const line = headline(`${nameOf(target)}(${functionParameterNames(target.fn, docs).join(", ")})`, docs?.description);
      if (!docs) return `${line} (undocumented)`;
      return docs.returns ? `${line}\n    Returns: ${docs.returns}` : line;
    }
    case "class": {
      const docs = docsOf(target.cls);
      const lines = [docs ? headline(nameOf(target), forModel(docs.description)) : `${nameOf(target)} (undocumented)`];
      for (const member of classMembers(target.cls, target.instance, options)) {
        lines.push(`    ${headline(memberSignature(member, false), member.docs?.description)}`);
      }
      return lines.join("\n");
    }
  }
}

/** The full documentation of `value` (or of its `method`) as TypeScript declarations with JSDoc. */
export function fullDocs(value: unknown, method: string | undefined, options: DocsOptions = {}): string {
  const target = targetOf(value);
  if (method) return `declare class ${nameOf(target)} {\n${memberDeclaration(memberOf(target, method, options))}\n}`;
  switch (target.kind) {
    case "tool": return toolDeclaration(target.tool);
    case "function": {
      const docs = functionDocs(target.fn);
      const params = functionParameterNames(target.fn, docs);
      const signature = docs?.type ? `${nameOf(target)}${docs.type}` : `${nameOf(target)}(${params.join(", ")})`;
      const declaration = `declare function ${signature};`;
      if (!docs) return declaration;
      const paramDocs = Object.entries(docs.params ?? {}).map(([name, text]) => [name, forModel(text) ?? ""] as [string, string]);
      return `${jsDoc(docs.description, paramDocs, docs.returns)}\n${declaration}`;
    }
    case "class": {
      const docs = docsOf(target.cls);
      const members = classMembers(target.cls, target.instance, options).map(memberDeclaration);
      const body = members.length ? `\n${members.join("\n")}\n` : "";
      const declaration = `declare class ${nameOf(target)} {${body}}`;
      const description = docs ? forModel(docs.description) : undefined;
      return description ? `${jsDoc(description, [], undefined)}\n${declaration}` : declaration;
    }
  }
}
