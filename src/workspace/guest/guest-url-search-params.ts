/**
 * @module
 * The workspace's `URLSearchParams` (WHATWG URL standard): an ordered list of name/value pairs read from and
 * written as `application/x-www-form-urlencoded` text. Made from a string (a leading `?` ignored), from pairs,
 * from a record or from another `URLSearchParams`; the one a `URL` owns writes every change back to that URL's
 * query. Its iterators are live, as the standard's are.
 *
 * {@link createSearchParams} runs *inside* the sandbox from its source text, so it is self-contained.
 */
import type { Utf8Helpers } from "./guest-text.ts";
import type { UrlHosts } from "./guest-url-hosts.ts";

/** What {@link createSearchParams} gives `URL`. */
export interface SearchParamsParts {
  URLSearchParams: Function;
  /** A `URLSearchParams` over `query` whose changes call `update` with the new query (`null` when empty). */
  attached(query: string | null, update: (query: string | null) => void): object;
  /** Replaces the pairs of `params` with those of `query`, without calling its `update`. */
  reset(params: object, query: string | null): void;
}

/** Creates `URLSearchParams`. Runs inside the sandbox; see the module comment. */
export function createSearchParams(text: Utf8Helpers, hosts: UrlHosts): SearchParamsParts {
  const defineProperty = Object.defineProperty;
  type Pair = [string, string];
  interface State {
    list: Pair[];
    update?: (query: string | null) => void;
  }
  const states = new WeakMap<object, State>();
  const stateOf = (self: object) => {
    const state = states.get(self);
    if (!state) throw new TypeError("Illegal invocation: not a URLSearchParams");
    return state;
  };
  const needArguments = (given: number, needed: number, what: string) => {
    if (given < needed) throw new TypeError("URLSearchParams." + what + ": " + needed + " argument" + (needed > 1 ? "s" : "") + " required, but only " + given + " present");
  };

  const parse = (input: string): Pair[] => {
    const list: Pair[] = [];
    for (const sequence of input.split("&")) {
      if (sequence === "") continue;
      const equals = sequence.indexOf("=");
      const name = equals >= 0 ? sequence.slice(0, equals) : sequence;
      const value = equals >= 0 ? sequence.slice(equals + 1) : "";
      list.push([text.decode(hosts.percentDecode(name.replace(/\+/g, " "))), text.decode(hosts.percentDecode(value.replace(/\+/g, " ")))]);
    }
    return list;
  };
  const encode = (value: string) => hosts.percentEncode(value, hosts.sets.form!).replace(/%20/g, "+");
  const serialize = (list: Pair[]) => list.map((pair) => encode(pair[0]) + "=" + encode(pair[1])).join("&");
  const changed = (state: State) => {
    if (state.update) {
      const query = serialize(state.list);
      state.update(query === "" ? null : query);
    }
  };

  // Live iterators: each step reads the list as it is now.
  const iteratorPrototype = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
  const iterators = new WeakMap<object, { state: State; kind: number; index: number }>();
  defineProperty(iteratorPrototype, "next", {
    value: function next(this: object) {
      const entry = iterators.get(this);
      if (!entry) throw new TypeError("Illegal invocation: not a URLSearchParams iterator");
      const pair = entry.state.list[entry.index];
      if (pair === undefined) return { value: undefined, done: true };
      entry.index++;
      return { value: entry.kind === 0 ? pair[0] : entry.kind === 1 ? pair[1] : [pair[0], pair[1]], done: false };
    },
    writable: true, enumerable: true, configurable: true,
  });
  defineProperty(iteratorPrototype, Symbol.toStringTag, { value: "URLSearchParams Iterator", configurable: true });
  // Reachable only from an iterator, never from a global: frozen here, since the realm's lockdown walks globals.
  Object.freeze(iteratorPrototype.next);
  Object.freeze(iteratorPrototype);
  const iterate = (self: object, kind: number) => {
    const iterator = Object.create(iteratorPrototype);
    iterators.set(iterator, { state: stateOf(self), kind, index: 0 });
    return iterator;
  };

  class URLSearchParams {
    constructor(init: unknown = "") {
      const list: Pair[] = [];
      if (init !== null && (typeof init === "object" || typeof init === "function")) {
        const other = states.get(init);
        if (other) {
          for (const pair of other.list) list.push([pair[0], pair[1]]);
        } else if ((init as any)[Symbol.iterator] !== undefined) {
          for (const item of init as Iterable<unknown>) {
            const pair = item !== null && typeof item === "object" ? Array.from(item as Iterable<unknown>) : undefined;
            if (!pair || pair.length !== 2) throw new TypeError("URLSearchParams: each pair must be an iterable of exactly two items, [name, value]");
            list.push([String(pair[0]), String(pair[1])]);
          }
        } else {
          for (const key of Object.keys(init)) list.push([key, String((init as any)[key])]);
        }
      } else {
        const query = String(init);
        list.push(...parse(query.startsWith("?") ? query.slice(1) : query));
      }
      states.set(this, { list });
    }
    get size() {
      return stateOf(this).list.length;
    }
    append(name: unknown, value: unknown) {
      needArguments(arguments.length, 2, "append");
      const state = stateOf(this);
      state.list.push([String(name), String(value)]);
      changed(state);
    }
    delete(name: unknown, value?: unknown) {
      needArguments(arguments.length, 1, "delete");
      const state = stateOf(this);
      const key = String(name);
      const only = value === undefined ? undefined : String(value);
      state.list = state.list.filter((pair) => !(pair[0] === key && (only === undefined || pair[1] === only)));
      changed(state);
    }
    get(name: unknown) {
      needArguments(arguments.length, 1, "get");
      const key = String(name);
      const pair = stateOf(this).list.find((entry) => entry[0] === key);
      return pair ? pair[1] : null;
    }
    getAll(name: unknown) {
      needArguments(arguments.length, 1, "getAll");
      const key = String(name);
      return stateOf(this).list.filter((pair) => pair[0] === key).map((pair) => pair[1]);
    }
    has(name: unknown, value?: unknown) {
      needArguments(arguments.length, 1, "has");
      const key = String(name);
      const only = value === undefined ? undefined : String(value);
      return stateOf(this).list.some((pair) => pair[0] === key && (only === undefined || pair[1] === only));
    }
    set(name: unknown, value: unknown) {
      needArguments(arguments.length, 2, "set");
      const state = stateOf(this);
      const key = String(name);
      const index = state.list.findIndex((pair) => pair[0] === key);
      if (index < 0) state.list.push([key, String(value)]);
      else {
        state.list[index] = [key, String(value)];
        state.list = state.list.filter((pair, at) => at <= index || pair[0] !== key);
      }
      changed(state);
    }
    sort() {
      const state = stateOf(this);
      // Stable, by code units, as the standard asks (Array.prototype.sort is stable).
      state.list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      changed(state);
    }
    forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown) {
      if (typeof callback !== "function") throw new TypeError("URLSearchParams.forEach: the callback is not a function");
      const state = stateOf(this);
      for (let index = 0; index < state.list.length; index++) {
        const pair = state.list[index]!;
        callback.call(thisArg, pair[1], pair[0], this);
      }
    }
    keys() {
      return iterate(this, 0);
    }
    values() {
      return iterate(this, 1);
    }
    entries() {
      return iterate(this, 2);
    }
    toString() {
      return serialize(stateOf(this).list);
    }
  }
  const prototype = URLSearchParams.prototype as any;
  defineProperty(prototype, Symbol.iterator, { value: prototype.entries, writable: true, enumerable: false, configurable: true });
  defineProperty(prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });

  return {
    URLSearchParams,
    attached(query, update) {
      const params = new URLSearchParams("");
      const state = stateOf(params);
      state.list = query === null ? [] : parse(query);
      state.update = update;
      return params;
    },
    reset(params, query) {
      stateOf(params).list = query === null ? [] : parse(query);
    },
  };
}
