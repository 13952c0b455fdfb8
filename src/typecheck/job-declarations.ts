/**
 * @module
 * The declarations a job's cells are checked against besides the workspace's variables: its tools as the model
 * was shown them (`{detailed_tools}`'s signatures, written for checking: see `TypeOfOptions.checking`), the
 * values of its agent's context, and the classes of every host object a cell can hold — classes named by tool
 * parameters and results, the classes of context values and bindings, and exposed classes.
 *
 * A class is declared with the members agent code may use (the broker's member policy decides; documentation
 * ACLs only choose what the model is shown). Its documented members keep their documented types; methods and
 * fields without one are `any`. A class whose documentation lists its members is *closed*: using a member it
 * does not have is an error. Any other class cannot say which fields its objects have (their own fields are
 * made by its constructor), so it also accepts members it does not list, as `any`.
 */
import { z } from "zod";
import { docsOf, isClass, type ClassDocs, type FunctionDocs, type MemberDocs } from "../docs/class-docs.ts";
import { signatureOf, typeOf } from "../docs/tool-docs.ts";
import { isIdentifier } from "../tools/is-identifier.ts";
import { isOptionalSchema } from "../tools/schema-shape.ts";
import type { Tool } from "../tools/tool.ts";
import { ENGINE_GLOBALS } from "../workspace/guest/guest-realm.ts";
import type { ExposedClasses } from "../workspace/membrane/exposed-classes.ts";
import type { ClassPolicy } from "../workspace/membrane/exposed-classes.ts";
import { memberRefusal, writeRefusal } from "../workspace/membrane/member-policy.ts";
import { CELL_GLOBAL_NAMES } from "./cell-globals.ts";
import { hostShape } from "./host-shape.ts";
import { schemaClasses } from "./schema-classes.ts";
import { ANY, named, writeShape, type TypeShape } from "./type-shape.ts";

/** What a job's declarations are made from. */
export interface JobScope {
  /** Every tool of the job's workspace (an agent's registry), hidden ones included. */
  readonly tools: readonly Tool[];
  /** True when agent code may call `tool` (not hidden, in the job's allowed set). */
  permits(tool: Tool): boolean;
  /** Values in scope by name: the agent's context (its tools are among `tools`). */
  readonly context: Readonly<Record<string, unknown>>;
  /** Host objects that persist by name (the application's bindings and the agent's context). */
  readonly bindings: ReadonlyMap<string, unknown>;
  readonly exposed?: ExposedClasses | undefined;
}

/** Names TypeScript's library or the workspace's globals declare: a host class of one of these names is not declared. */
const RESERVED = new Set<string>([
  ...ENGINE_GLOBALS, ...CELL_GLOBAL_NAMES,
  "Intl", "WeakRef", "FinalizationRegistry", "Atomics", "Generator", "AsyncGenerator", "GeneratorFunction", "AsyncGeneratorFunction",
  "AsyncFunction", "AsyncIterator", "AsyncIterable", "AsyncIterableIterator", "Iterable", "IterableIterator", "IteratorObject",
  "PromiseLike", "ArrayLike", "ReadonlyArray", "ReadonlyMap", "ReadonlySet", "ArrayBufferView", "ArrayBufferLike", "PropertyKey",
  "PropertyDescriptor", "TemplateStringsArray", "Partial", "Required", "Readonly", "Pick", "Record", "Exclude", "Extract", "Omit",
  "NonNullable", "Parameters", "ConstructorParameters", "ReturnType", "InstanceType", "Awaited", "ThisType", "Uppercase",
  "Lowercase", "Capitalize", "Uncapitalize", "NoInfer", "DisposableStack", "AsyncDisposableStack", "SuppressedError", "Disposable",
  "AsyncDisposable", "ClassDecorator", "MethodDecorator", "PropertyDecorator", "ParameterDecorator",
]);

/** Classes declared for one job at most (the rest are `any`). */
const MAX_CLASSES = 500;

/** The declarations of one job's scope. */
export class JobDeclarations {
  /** The declarations' text. */
  readonly text: string;
  /** The names the text declares as values (tools and context entries), which a workspace variable may shadow. */
  readonly names: ReadonlySet<string>;
  readonly #handles = new Map<string, TypeShape>();
  readonly #exposedNames = new Map<string, string>();
  readonly #toolNames: ReadonlySet<string>;

  constructor(scope: JobScope, omit: ReadonlySet<string> = new Set()) {
    const classes = new ClassDeclarations(scope.exposed);
    const lines: string[] = [];
    const names = new Set<string>();
    const toolNames = new Set<string>();
    for (const tool of scope.tools) {
      if (!isIdentifier(tool.name) || omit.has(tool.name) || names.has(tool.name)) continue;
      names.add(tool.name);
      toolNames.add(tool.name);
      if (!scope.permits(tool)) {
        // In scope, but a call reads `NameError: tool 'x' is not exposed to this job`: the workspace says why.
        lines.push(`declare const ${tool.name}: any;`);
        continue;
      }
      lines.push(toolDeclaration(tool));
      for (const schema of [...Object.values(tool.params.shape) as z.ZodType[], ...(tool.returns instanceof z.ZodType ? [tool.returns] : [])]) {
        for (const cls of schemaClasses(schema)) classes.declare(cls, undefined);
      }
    }
    for (const [name, value] of Object.entries(scope.context)) {
      if (!isIdentifier(name) || omit.has(name) || names.has(name)) continue;
      names.add(name);
      lines.push(contextDeclaration(name, value, classes));
    }
    for (const [name, value] of scope.bindings) {
      this.#handles.set(`binding:${name}`, handleShape(value, classes));
    }
    for (const entry of scope.exposed?.entries() ?? []) {
      const declared = classes.declare(entry.cls, undefined);
      if (declared) this.#exposedNames.set(entry.name, declared);
    }
    this.text = [...classes.texts(), ...lines].join("\n");
    this.names = names;
    this.#toolNames = toolNames;
  }

  /** The type of the host object a stored handle refers to, by its reference key. */
  handleShape(key: string): TypeShape {
    const known = this.#handles.get(key);
    if (known) return known;
    if (key.startsWith("tool:")) {
      const name = key.slice(5);
      return this.#toolNames.has(name) ? named(`typeof ${name}`) : ANY;
    }
    if (key.startsWith("x:")) {
      const declared = this.#exposedNames.get(key.slice(2, key.indexOf(":", 2) < 0 ? undefined : key.indexOf(":", 2)));
      return declared ? named(declared) : ANY;
    }
    return ANY;
  }
}

/**
 * A tool's declaration: its positional signature, then the named form (`f({ a, b })`) the workspace also accepts.
 * What a call gives agent code is what `run` gives: a promise from an `async` function (or a call that may wait
 * for an approval), else the value itself — which `await` takes as it is. The model is told every call can be
 * awaited (`Promise<…>` in its declarations); the checker also knows that a synchronous tool's result can be used
 * without `await` (and has no `then`). A tool that does not declare its result gives `any`: what it returns may be
 * a value, a promise, or a handle the workspace makes of it (a child job's).
 */
function toolDeclaration(tool: Tool): string {
  const result = tool.returns instanceof z.ZodType ? typeOf(tool.returns, { checking: true }) : undefined;
  const returns = result === undefined ? "any" : isAsyncFunction(tool.run) || tool.needsApproval !== false ? `Promise<${result}>` : result;
  const positional = `declare function ${signatureOf(tool, true, { checking: true })}: ${returns};`;
  if (tool.parameterNames.length === 0) return positional;
  const fields = tool.parameterNames.map((name) => {
    const schema = tool.params.shape[name] as z.ZodType;
    return `${name}${isOptionalSchema(schema) ? "?" : ""}: ${typeOf(schema, { checking: true })}`;
  });
  return `${positional}\ndeclare function ${tool.name}(args: { ${fields.join("; ")} }): ${returns};`;
}

function isAsyncFunction(fn: Function): boolean {
  return Object.prototype.toString.call(fn) === "[object AsyncFunction]";
}

function contextDeclaration(name: string, value: unknown, classes: ClassDeclarations): string {
  if (typeof value === "function") {
    if (isClass(value)) {
      const declared = classes.declare(value, undefined);
      if (declared === name) return "";
      return `declare const ${name}: ${declared ? `typeof ${declared}` : "any"};`;
    }
    const type = functionType(value);
    return type ? `declare function ${name}${type};` : `declare function ${name}(...args: any[]): any;`;
  }
  return `declare var ${name}: ${writeShape(hostShape(value, (cls, instance) => classes.declare(cls, instance)), NO_WORKSPACE)};`;
}

/** A documented function's call signature (`(slot: Slot): string`), if its docs give one. */
function functionType(fn: Function): string | undefined {
  const docs = docsOf(fn) as FunctionDocs | undefined;
  return typeof docs?.type === "string" && docs.type.trim().startsWith("(") ? docs.type.trim() : undefined;
}

function handleShape(value: unknown, classes: ClassDeclarations): TypeShape {
  if (typeof value === "function") {
    if (isClass(value)) {
      const declared = classes.declare(value, undefined);
      return declared ? named(`typeof ${declared}`) : ANY;
    }
    const type = functionType(value);
    return named(type ? `{ ${type} }` : "(...args: any[]) => any");
  }
  return hostShape(value, (cls, instance) => classes.declare(cls, instance));
}

/** Host values name no workspace variables. */
const NO_WORKSPACE = { isClass: () => false, isDeclared: () => false };

/** The classes declared for one job, by class. */
class ClassDeclarations {
  readonly #names = new Map<Function, string | undefined>();
  readonly #taken = new Set<string>();
  readonly #texts: string[] = [];
  readonly #exposed: ExposedClasses | undefined;

  constructor(exposed: ExposedClasses | undefined) {
    this.#exposed = exposed;
  }

  /** Declares `cls` (its fields read from `instance`, when one is at hand); the name to use, or `undefined`. */
  declare(cls: Function, instance: object | undefined): string | undefined {
    if (this.#names.has(cls)) return this.#names.get(cls);
    const name = cls.name;
    if (!isIdentifier(name) || RESERVED.has(name) || this.#taken.has(name) || this.#names.size >= MAX_CLASSES) {
      this.#names.set(cls, undefined);
      return undefined;
    }
    this.#names.set(cls, name);
    this.#taken.add(name);
    // Registered first: a member whose type is this class refers to it by name.
    const index = this.#texts.push("") - 1;
    this.#texts[index] = this.#declaration(cls, name, instance);
    return name;
  }

  texts(): readonly string[] {
    return this.#texts;
  }

  #declaration(cls: Function, name: string, instance: object | undefined): string {
    const docs = docsOf(cls) as ClassDocs | undefined;
    const documented = docs?.members ?? {};
    const closed = docs?.members !== undefined;
    const policy = this.#policyOf(cls);
    const sample = instance ?? Object.create(cls.prototype ?? null);
    // Agent code cannot construct a host class (the broker refuses it): the constructor is not theirs to call.
    const lines: string[] = ["  private constructor();"];
    const seen = new Set<string>(["constructor"]);
    const usable = (member: string) => !seen.has(member) && memberRefusal(sample, member, name, policy) === undefined;
    const readonly = (member: string) => (writeRefusal(member, name, policy) ? "readonly " : "");
    const add = (member: string, line: string) => {
      seen.add(member);
      lines.push(`  ${line}`);
    };
    for (const [member, raw] of Object.entries(documented)) {
      if (!usable(member)) continue;
      const entry: MemberDocs = typeof raw === "string" ? { description: raw } : raw;
      const type = typeof entry.type === "string" ? entry.type.trim() : "";
      const onPrototype = findOnPrototype(cls, member);
      if (type.startsWith("(")) add(member, `${key(member)}${type};`);
      else if (type) add(member, `${readonly(member)}${key(member)}: ${type};`);
      else if (typeof onPrototype?.value === "function") add(member, `${key(member)}(...args: any[]): any;`);
      else add(member, `${readonly(member)}${key(member)}: ${this.#fieldType(instance, member)};`);
    }
    for (let proto = cls.prototype as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const member of Object.getOwnPropertyNames(proto)) {
        if (!usable(member)) continue;
        const descriptor = Object.getOwnPropertyDescriptor(proto, member)!;
        if (typeof descriptor.value === "function") add(member, `${key(member)}(...args: any[]): any;`);
        else add(member, `${descriptor.set || !descriptor.get ? readonly(member) : "readonly "}${key(member)}: any;`);
      }
    }
    for (const member of instance ? Object.keys(instance) : []) {
      if (usable(member)) add(member, `${readonly(member)}${key(member)}: ${this.#fieldType(instance, member)};`);
    }
    for (const member of Object.getOwnPropertyNames(cls)) {
      if (member === "length" || member === "name" || member === "prototype" || member === "statekDocs" || member.startsWith("_")) continue;
      const descriptor = Object.getOwnPropertyDescriptor(cls, member)!;
      lines.push(`  static ${key(member)}${typeof descriptor.value === "function" ? "(...args: any[]): any" : ": any"};`);
    }
    if (!closed) lines.push("  [member: string]: any;");
    return `declare class ${name} {\n${lines.join("\n")}\n}`;
  }

  #fieldType(instance: object | undefined, member: string): string {
    if (!instance) return "any";
    const descriptor = Object.getOwnPropertyDescriptor(instance, member);
    if (!descriptor || !("value" in descriptor)) return "any";
    return writeShape(hostShape(descriptor.value, (cls, sample) => this.declare(cls, sample)), NO_WORKSPACE);
  }

  #policyOf(cls: Function): ClassPolicy | undefined {
    let best: ClassPolicy | undefined;
    let bestClass: Function | undefined;
    for (const entry of this.#exposed?.entries() ?? []) {
      if (entry.cls !== cls && !(cls.prototype instanceof entry.cls)) continue;
      if (!bestClass || entry.cls.prototype instanceof bestClass) {
        best = entry.policy;
        bestClass = entry.cls;
      }
    }
    return best;
  }
}

function findOnPrototype(cls: Function, member: string): PropertyDescriptor | undefined {
  for (let proto = cls.prototype as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, member);
    if (descriptor) return descriptor;
  }
  return undefined;
}

function key(member: string): string {
  return isIdentifier(member) ? member : JSON.stringify(member);
}
