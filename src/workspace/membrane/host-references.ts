/**
 * @module
 * How host objects persist. A handle is stored as a *reference key*: `tool:<name>` for a
 * tool, `binding:<name>` for an application binding or agent context value, `x:<Class>:<id>` for an object of
 * a class registered with `statek.expose(Class, { id, load })`. Any other host object cannot be restored and
 * becomes a tombstone. {@link HostReferences} answers both directions for one job, and tells each new handle
 * the member policy of its exposed class.
 */
import { isTool, type Tool } from "../../tools/tool.ts";
import { withArticle } from "../../tools/with-article.ts";
import type { ClassPolicy, ExposedClasses } from "./exposed-classes.ts";
import { classNameOf, type HandleDescription } from "./handle-table.ts";
import { errorMessage } from "../../errors/error-text.ts";

export { ExposedClasses, type ExposeOptions } from "./exposed-classes.ts";

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

  /** Adds a tool made while the job runs (`createTool`): a variable holding it persists by its name. */
  addTool(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  /** How `value` persists (its key, or why it cannot) and the member policy of its class. */
  describe(value: object): HandleDescription {
    if (isTool(value)) return { key: `tool:${value.name}`, callable: true };
    const exposed = this.#exposed?.find(value);
    const policy = exposed ? { policy: exposed.policy } : {};
    const binding = this.#bindingNames.get(value);
    if (binding !== undefined) return { key: `binding:${binding}`, ...policy };
    if (exposed?.persists) {
      try {
        return { key: `x:${exposed.name}:${String(exposed.options.id!(value))}`, ...policy };
      } catch (error) {
        return { key: null, why: `the id of this ${exposed.name} could not be read (${errorMessage(error)})`, ...policy };
      }
    }
    return { key: null, why: `${withArticle(classNameOf(value))} host object that is neither a binding nor of an exposed class`, ...policy };
  }

  /** The member policy of `value`'s exposed class, if it has one. */
  policyOf(value: object): ClassPolicy | undefined {
    return this.#exposed?.find(value)?.policy;
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
    if (!exposed?.persists) return { why: `class '${name}' is not exposed in this process` };
    try {
      const value = await exposed.options.load!(id);
      return value === null || value === undefined ? { why: `${name} ${id} no longer exists` } : { value };
    } catch (error) {
      return { why: `loading ${name} ${id} failed: ${errorMessage(error)}` };
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
    if (kind === "task") {
      // A sub-task's handle, read outside its VM (a job view, a tool's `ctx.variable`): its id and role.
      const colon = name.indexOf(":");
      if (colon > 0) return { value: Object.freeze({ id: name.slice(0, colon), role: name.slice(colon + 1) }) };
    }
    return { why: `unknown reference '${key}'` };
  }
}
