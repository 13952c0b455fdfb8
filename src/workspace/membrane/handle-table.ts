/**
 * @module
 * The host side of handles: which host object each handle id of one workspace stands for, and how it
 * persists. Ids are only meaningful inside the table of the job that issued them, so a guest can never name
 * another job's objects.
 */
import type { ClassPolicy } from "./exposed-classes.ts";

/** How a host object persists and which policy its members follow, as the workspace describes it. */
export interface HandleDescription {
  key: string | null;
  why?: string;
  callable?: boolean;
  policy?: ClassPolicy;
}

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
  /** The member policy of its exposed class, if it has one. */
  readonly policy: ClassPolicy | undefined;
}

/** Handle ids and entries of one workspace. */
export class HandleTable {
  #byId = new Map<number, HandleEntry>();
  #byValue = new Map<object, HandleEntry>();
  #byKey = new Map<string, HandleEntry>();
  #next = 1;

  /** The entry for `value`, registering it on first sight with the persistence `describe` gives. */
  register(value: object, describe: (value: object) => HandleDescription): HandleEntry {
    const known = this.#byValue.get(value);
    if (known) return known;
    const { key, why, callable, policy } = describe(value);
    const entry: HandleEntry = {
      id: this.#next++,
      value,
      key,
      why: key ? undefined : why,
      className: classNameOf(value),
      callable: callable ?? typeof value === "function",
      policy,
    };
    this.#byId.set(entry.id, entry);
    this.#byValue.set(value, entry);
    if (key && !this.#byKey.has(key)) this.#byKey.set(key, entry);
    return entry;
  }

  /** The entry for an id the guest sent, or `undefined` for an id this workspace never issued. */
  get(id: number): HandleEntry | undefined {
    return this.#byId.get(id);
  }

  /** The first entry issued with persistence key `key`, if any. */
  withKey(key: string): HandleEntry | undefined {
    return this.#byKey.get(key);
  }

  /** Every entry issued so far. */
  entries(): IterableIterator<HandleEntry> {
    return this.#byId.values();
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
