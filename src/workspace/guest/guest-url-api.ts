/**
 * @module
 * The workspace's `URL` and `URLSearchParams` globals (WHATWG URL standard): thin classes over the URL engine
 * (`guest-url.ts`), which is compiled the first time a VM uses them.
 *
 * - `URL`: `href`, `origin`, `protocol`, `username`, `password`, `host`, `hostname`, `port`, `pathname`,
 *   `search`, `searchParams`, `hash`, `toString`, `toJSON`, `URL.canParse`, `URL.parse`; a string that does
 *   not parse is a `TypeError` (`Invalid URL`, `Invalid base URL`).
 * - `URLSearchParams`: an ordered list of name/value pairs made from a string (a leading `?` ignored), from
 *   pairs, from a record or from another `URLSearchParams`; the one a `URL` owns writes every change back to
 *   that URL's query, and reads the query again when `href` or `search` is set. Its iterators are live.
 *
 * {@link installUrlGlobals} runs *inside* the sandbox from its source text, so it is self-contained.
 */
import type { UrlEngine, UrlRecord } from "./guest-url.ts";

/** Installs `URL` and `URLSearchParams` over a lazily made engine. Runs inside the sandbox; see the module comment. */
export function installUrlGlobals(G: any, engine: () => UrlEngine): void {
  const defineProperty = Object.defineProperty;
  type Pair = [string, string];
  interface ParamsState {
    list: Pair[];
    /** The URL whose query the pairs are. */
    url?: UrlRecord;
  }
  const paramsStates = new WeakMap<object, ParamsState>();
  const urls = new WeakMap<object, { url: UrlRecord; params: object }>();
  const paramsOf = (self: object) => {
    const state = paramsStates.get(self);
    if (!state) throw new TypeError("Illegal invocation: not a URLSearchParams");
    return state;
  };
  const urlOf = (self: object) => {
    const state = urls.get(self);
    if (!state) throw new TypeError("Illegal invocation: not a URL");
    return state;
  };
  const needArguments = (given: number, needed: number, what: string) => {
    if (given < needed) throw new TypeError(what + ": " + needed + " argument" + (needed > 1 ? "s" : "") + " required, but only " + given + " present");
  };
  const changed = (state: ParamsState) => {
    if (!state.url) return;
    const query = engine().serializeForm(state.list);
    state.url.query = query === "" ? null : query;
  };

  // Live iterators: each step reads the list as it is now.
  const iteratorPrototype = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
  const iterators = new WeakMap<object, { state: ParamsState; kind: number; index: number }>();
  defineProperty(iteratorPrototype, "next", {
    // A method, not a function expression: it has no `prototype` object of its own to freeze.
    value: {
      next(this: object) {
      const entry = iterators.get(this);
      if (!entry) throw new TypeError("Illegal invocation: not a URLSearchParams iterator");
      const pair = entry.state.list[entry.index];
      if (pair === undefined) return { value: undefined, done: true };
      entry.index++;
      return { value: entry.kind === 0 ? pair[0] : entry.kind === 1 ? pair[1] : [pair[0], pair[1]], done: false };
      },
    }.next,
    writable: true, enumerable: true, configurable: true,
  });
  defineProperty(iteratorPrototype, Symbol.toStringTag, { value: "URLSearchParams Iterator", configurable: true });
  // Reachable only from an iterator, never from a global: frozen here, since the realm's lockdown walks globals.
  Object.freeze(iteratorPrototype.next);
  Object.freeze(iteratorPrototype);
  const iterate = (self: object, kind: number) => {
    const iterator = Object.create(iteratorPrototype);
    iterators.set(iterator, { state: paramsOf(self), kind, index: 0 });
    return iterator;
  };

  class URLSearchParams {
    constructor(init: unknown = "") {
      const list: Pair[] = [];
      if (init !== null && (typeof init === "object" || typeof init === "function")) {
        const other = paramsStates.get(init);
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
        if (query !== "" && query !== "?") list.push(...engine().parseForm(query[0] === "?" ? query.slice(1) : query));
      }
      paramsStates.set(this, { list });
    }
    get size() {
      return paramsOf(this).list.length;
    }
    append(name: unknown, value: unknown) {
      needArguments(arguments.length, 2, "URLSearchParams.append");
      const state = paramsOf(this);
      state.list.push([String(name), String(value)]);
      changed(state);
    }
    delete(name: unknown, value?: unknown) {
      needArguments(arguments.length, 1, "URLSearchParams.delete");
      const state = paramsOf(this);
      const key = String(name);
      const only = value === undefined ? undefined : String(value);
      state.list = state.list.filter((pair) => !(pair[0] === key && (only === undefined || pair[1] === only)));
      changed(state);
    }
    get(name: unknown) {
      needArguments(arguments.length, 1, "URLSearchParams.get");
      const key = String(name);
      const pair = paramsOf(this).list.find((entry) => entry[0] === key);
      return pair ? pair[1] : null;
    }
    getAll(name: unknown) {
      needArguments(arguments.length, 1, "URLSearchParams.getAll");
      const key = String(name);
      return paramsOf(this).list.filter((pair) => pair[0] === key).map((pair) => pair[1]);
    }
    has(name: unknown, value?: unknown) {
      needArguments(arguments.length, 1, "URLSearchParams.has");
      const key = String(name);
      const only = value === undefined ? undefined : String(value);
      return paramsOf(this).list.some((pair) => pair[0] === key && (only === undefined || pair[1] === only));
    }
    set(name: unknown, value: unknown) {
      needArguments(arguments.length, 2, "URLSearchParams.set");
      const state = paramsOf(this);
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
      const state = paramsOf(this);
      // Stable, by code units, as the standard asks (Array.prototype.sort is stable).
      state.list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      changed(state);
    }
    forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown) {
      if (typeof callback !== "function") throw new TypeError("URLSearchParams.forEach: the callback is not a function");
      const state = paramsOf(this);
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
      return engine().serializeForm(paramsOf(this).list);
    }
  }
  const paramsPrototype = URLSearchParams.prototype as any;
  defineProperty(paramsPrototype, Symbol.iterator, { value: paramsPrototype.entries, writable: true, enumerable: false, configurable: true });
  defineProperty(paramsPrototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });

  const parse = (input: unknown, base: unknown) => engine().parse(String(input), base === undefined ? undefined : String(base));
  class URL {
    constructor(input: unknown, base?: unknown) {
      needArguments(arguments.length, 1, "URL");
      const parsed = parse(input, base);
      if ("error" in parsed) throw new TypeError(parsed.error);
      const url = parsed.record;
      const params = new URLSearchParams("");
      const state = paramsOf(params);
      state.list = engine().parseForm(url.query);
      state.url = url;
      urls.set(this, { url, params });
    }
    static canParse(input: unknown, base?: unknown) {
      needArguments(arguments.length, 1, "URL.canParse");
      return !("error" in parse(input, base));
    }
    static parse(input: unknown, base?: unknown) {
      needArguments(arguments.length, 1, "URL.parse");
      return "error" in parse(input, base) ? null : new URL(input, base);
    }
    get searchParams() {
      return urlOf(this).params;
    }
    toString() {
      return engine().get(urlOf(this).url, "href");
    }
    toJSON() {
      return engine().get(urlOf(this).url, "href");
    }
  }
  const urlPrototype = URL.prototype;
  for (const name of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"]) {
    defineProperty(urlPrototype, name, {
      get: function (this: object) {
        return engine().get(urlOf(this).url, name);
      },
      set: name === "origin" ? undefined : function (this: object, value: unknown) {
        const state = urlOf(this);
        engine().set(state.url, name, String(value));
        // The query may have changed: the URL's own URLSearchParams reads it again.
        if (name === "href" || name === "search") paramsOf(state.params).list = engine().parseForm(state.url.query);
      },
      enumerable: true,
      configurable: true,
    });
  }
  defineProperty(urlPrototype, Symbol.toStringTag, { value: "URL", configurable: true });

  const global = (name: string, value: unknown) => defineProperty(G, name, { value, writable: true, enumerable: false, configurable: true });
  global("URL", URL);
  global("URLSearchParams", URLSearchParams);
}
