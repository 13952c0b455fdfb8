/**
 * @module
 * The host side of handles: which host object each handle id of one workspace stands for, and how it
 * persists. Ids are only meaningful inside the table of the job that issued them, so a guest can never name
 * another job's objects.
 */

/** One host object known to a workspace. */
export interface HandleEntry {
  readonly id: number;
  readonly value: object;
  /** How the handle persists (`binding:calendar`, `tool:moveMeeting`, `x:Meeting:42`), or `null`. */
  readonly key: string | null;
  /** Why it cannot persist, when `key` is `null`. */
  readonly why: string | undefined;
  /** The host class name, for messages. */
  readonly className: string;
  readonly callable: boolean;
}

/** Handle ids and entries of one workspace. */
export class HandleTable {
  #byId = new Map<number, HandleEntry>();
  #byValue = new Map<object, HandleEntry>();
  #next = 1;

  /** The entry for `value`, registering it on first sight with the persistence `describe` gives. */
  register(value: object, describe: (value: object) => { key: string | null; why?: string; callable?: boolean }): HandleEntry {
    const known = this.#byValue.get(value);
    if (known) return known;
    const { key, why, callable } = describe(value);
    const entry: HandleEntry = {
      id: this.#next++,
      value,
      key,
      why: key ? undefined : why,
      className: classNameOf(value),
      callable: callable ?? typeof value === "function",
    };
    this.#byId.set(entry.id, entry);
    this.#byValue.set(value, entry);
    return entry;
  }

  /** The entry for an id the guest sent, or `undefined` for an id this workspace never issued. */
  get(id: number): HandleEntry | undefined {
    return this.#byId.get(id);
  }

  /** Number of handles issued. */
  get size(): number {
    return this.#byId.size;
  }
}

/** A readable class name for messages: `Calendar`, `function formatSlot`. */
export function classNameOf(value: object): string {
  if (typeof value === "function") return value.name ? `function ${value.name}` : "function";
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  return typeof name === "string" && name ? name : "Object";
}
