/**
 * @module
 * `statek.expose(Class, …)` registrations: how objects of an application class persist (an id to store, a
 * loader that brings the object back) and which of their members agent code may use (allow and deny lists,
 * read-only fields). The policy is enforced by the broker on every crossing; it is authorization, unlike the
 * documentation ACLs of `describeClass()`.
 */

/** How objects of an exposed class persist and what agent code may do with them. */
export interface ExposeOptions<T> {
  /** The stored id of an object. Give `id` and `load` together to make the objects persist by id. */
  id?(value: T): string | number;
  /** The object for a stored id; may be async. Returning `null`/`undefined` makes a tombstone. */
  load?(id: string): T | null | undefined | Promise<T | null | undefined>;
  /** The name used in reference keys and messages. @default the class name */
  name?: string;
  /** When given, only these members (fields and methods) are accessible. */
  allow?: readonly string[];
  /** Members that are refused; `prefix*` refuses every member whose name starts with `prefix`. */
  deny?: readonly string[];
  /** `true`: agent code may write no field; a list: it may not write these. */
  readOnly?: boolean | readonly string[];
  /**
   * Methods without side effects (`["find", "list"]`): a durable job journals their results and may call them
   * again after a restart; other method calls are side effects, made exactly once or answered `InDoubtError`.
   */
  readOnlyMethods?: readonly string[];
}

/** The member policy of one exposed class, as the broker checks it. */
export interface ClassPolicy {
  readonly name: string;
  readonly allow: ReadonlySet<string> | undefined;
  readonly deny: ReadonlySet<string>;
  readonly denyPrefixes: readonly string[];
  readonly readOnly: true | ReadonlySet<string>;
  readonly readOnlyMethods: ReadonlySet<string>;
}

/** One registration. */
export interface ExposedEntry {
  readonly cls: Function;
  readonly name: string;
  readonly options: ExposeOptions<any>;
  readonly policy: ClassPolicy;
  /** True when objects of the class persist by id. */
  readonly persists: boolean;
}

/** The classes exposed to a `Statek` instance. */
export class ExposedClasses {
  #byName = new Map<string, ExposedEntry>();
  #version = 0;

  /** Registers a class; a later registration under the same name replaces it. Throws a `TypeError` for bad options. */
  register<T>(cls: abstract new (...args: any[]) => T, options: ExposeOptions<T> = {}): void {
    if (typeof cls !== "function") throw new TypeError("expose: expected a class");
    const label = `expose(${cls.name || "anonymous class"})`;
    if (typeof options !== "object" || options === null) throw new TypeError(`${label}: options must be an object`);
    const hasId = options.id !== undefined;
    const hasLoad = options.load !== undefined;
    if (hasId !== hasLoad) throw new TypeError(`${label}: give id(value) and load(id) together, or neither`);
    if (hasId && (typeof options.id !== "function" || typeof options.load !== "function")) {
      throw new TypeError(`${label}: id and load must be functions`);
    }
    const name = options.name ?? cls.name;
    if (!/^[\w$.-]+$/.test(name)) throw new TypeError(`expose: '${name}' is not a usable class name; pass options.name`);
    const allow = options.allow === undefined ? undefined : new Set(memberList(label, "allow", options.allow));
    const denied = memberList(label, "deny", options.deny ?? []);
    let readOnly: true | ReadonlySet<string>;
    if (options.readOnly === true) readOnly = true;
    else if (options.readOnly === undefined || options.readOnly === false) readOnly = new Set();
    else readOnly = new Set(memberList(label, "readOnly", options.readOnly));
    const policy: ClassPolicy = {
      name,
      allow,
      deny: new Set(denied.filter((entry) => !entry.endsWith("*"))),
      denyPrefixes: denied.filter((entry) => entry.endsWith("*")).map((entry) => entry.slice(0, -1)),
      readOnly,
      readOnlyMethods: new Set(memberList(label, "readOnlyMethods", options.readOnlyMethods ?? [])),
    };
    this.#byName.set(name, { cls, name, options, policy, persists: hasId });
    this.#version++;
  }

  /** Counts registrations: what was derived from the registered classes is stale when it changed. */
  get version(): number {
    return this.#version;
  }

  /** Every registration, in the order of their names' first registration. */
  entries(): IterableIterator<ExposedEntry> {
    return this.#byName.values();
  }

  /** The registration covering `value` (the nearest class in its prototype chain), if any. */
  find(value: object): ExposedEntry | undefined {
    let best: ExposedEntry | undefined;
    for (const entry of this.#byName.values()) {
      if (!(value instanceof (entry.cls as new () => object))) continue;
      if (!best || entry.cls.prototype instanceof best.cls) best = entry;
    }
    return best;
  }

  /** The registration named `name`, if any. */
  get(name: string): ExposedEntry | undefined {
    return this.#byName.get(name);
  }
}

function memberList(label: string, option: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item.length > 0)) {
    throw new TypeError(`${label}: ${option} must be an array of member names`);
  }
  return value as string[];
}
