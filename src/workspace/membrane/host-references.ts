/**
 * @module
 * How host objects persist (DESIGN.md §6.3). A handle is stored as a *reference key*: `tool:<name>` for a
 * tool, `binding:<name>` for an application binding or agent context value, `x:<Class>:<id>` for an object of
 * a class registered with `statek.expose(Class, { id, load })`. Any other host object cannot be restored and
 * becomes a tombstone. {@link HostReferences} answers both directions for one job.
 */
import { isTool, type Tool } from "../../tools/tool.ts";
import { classNameOf } from "./handle-table.ts";

/** How objects of an exposed class persist: an id to store, and a loader that brings the object back. */
export interface ExposeOptions<T> {
  /** The stored id of an object. */
  id(value: T): string | number;
  /** The object for a stored id; may be async. Returning `null`/`undefined` makes a tombstone. */
  load(id: string): T | null | undefined | Promise<T | null | undefined>;
  /** The name used in reference keys. @default the class name */
  name?: string;
}

interface ExposedEntry {
  cls: Function;
  name: string;
  options: ExposeOptions<any>;
}

/** The classes exposed to a {@link Statek} instance. */
export class ExposedClasses {
  #byName = new Map<string, ExposedEntry>();

  /** Registers a class; a later registration under the same name replaces it. */
  register<T>(cls: abstract new (...args: any[]) => T, options: ExposeOptions<T>): void {
    if (typeof cls !== "function") throw new TypeError("expose: expected a class");
    if (typeof options?.id !== "function" || typeof options.load !== "function") {
      throw new TypeError(`expose(${cls.name}): options need id(value) and load(id) functions`);
    }
    const name = options.name ?? cls.name;
    if (!/^[\w$.-]+$/.test(name)) throw new TypeError(`expose: '${name}' is not a usable class name; pass options.name`);
    this.#byName.set(name, { cls, name, options });
  }

  /** The registration covering `value`, if any. */
  find(value: object): ExposedEntry | undefined {
    for (const entry of this.#byName.values()) if (value instanceof (entry.cls as new () => object)) return entry;
    return undefined;
  }

  /** The registration named `name`, if any. */
  get(name: string): ExposedEntry | undefined {
    return this.#byName.get(name);
  }
}

/** What references resolve against. */
export interface HostReferencesOptions {
  bindings: ReadonlyMap<string, unknown>;
  tools: readonly Tool[];
  exposed?: ExposedClasses;
}

type Resolved = { value: unknown } | { why: string };

const EXPOSED_KEY = /"k":"(x:[^"\\]*)"/g;

/** Reference keys of one job's host objects, both ways. */
export class HostReferences {
  readonly #bindings: ReadonlyMap<string, unknown>;
  readonly #bindingNames = new Map<unknown, string>();
  readonly #tools: Map<string, Tool>;
  readonly #exposed: ExposedClasses | undefined;
  readonly #loaded = new Map<string, Resolved>();

  constructor({ bindings, tools, exposed }: HostReferencesOptions) {
    this.#bindings = bindings;
    for (const [name, value] of bindings) {
      if ((typeof value === "object" && value !== null) || typeof value === "function") this.#bindingNames.set(value, name);
    }
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.#exposed = exposed;
  }

  /** How `value` persists: its key, or why it cannot. */
  describe(value: object): { key: string | null; why?: string; callable?: boolean } {
    if (isTool(value)) return { key: `tool:${value.name}`, callable: true };
    const binding = this.#bindingNames.get(value);
    if (binding !== undefined) return { key: `binding:${binding}` };
    const exposed = this.#exposed?.find(value);
    if (exposed) {
      try {
        return { key: `x:${exposed.name}:${String(exposed.options.id(value))}` };
      } catch (error) {
        return { key: null, why: `the id of this ${exposed.name} could not be read (${error instanceof Error ? error.message : String(error)})` };
      }
    }
    return { key: null, why: `a ${classNameOf(value)} host object that is neither a binding nor of an exposed class` };
  }

  /** Loads, ahead of a synchronous restore, every exposed object the stored texts refer to. */
  async preload(texts: Iterable<string>): Promise<void> {
    const keys = new Set<string>();
    for (const text of texts) {
      if (!text.includes('"k":"x:')) continue;
      for (const match of text.matchAll(EXPOSED_KEY)) keys.add(match[1]!);
    }
    await Promise.all([...keys].filter((key) => !this.#loaded.has(key)).map(async (key) => this.#loaded.set(key, await this.#load(key))));
  }

  async #load(key: string): Promise<Resolved> {
    const [, name, ...rest] = key.split(":");
    const id = rest.join(":");
    const exposed = this.#exposed?.get(name!);
    if (!exposed) return { why: `class '${name}' is not exposed in this process` };
    try {
      const value = await exposed.options.load(id);
      return value === null || value === undefined ? { why: `${name} ${id} no longer exists` } : { value };
    } catch (error) {
      return { why: `loading ${name} ${id} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** The host object a key stands for, or why it cannot be restored. */
  resolve(key: string): Resolved {
    const colon = key.indexOf(":");
    const kind = key.slice(0, colon);
    const name = key.slice(colon + 1);
    if (kind === "tool") {
      const tool = this.#tools.get(name);
      return tool ? { value: tool } : { why: `tool '${name}' is not available to this job` };
    }
    if (kind === "binding") {
      return this.#bindings.has(name) ? { value: this.#bindings.get(name) } : { why: `binding '${name}' is not registered in this process` };
    }
    if (kind === "x") return this.#loaded.get(key) ?? { why: `${key} was not loaded` };
    return { why: `unknown reference '${key}'` };
  }
}
