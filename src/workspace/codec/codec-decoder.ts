/**
 * @module
 * The decoding half of the workspace codec (`codec.ts`), which reads texts the guest may have crafted
 *. Every field is checked before it is used; a reference is an integer index into a table
 * this call built, checked against that table; names are looked up only in maps this call made, never on an
 * object of the realm (its `Object.prototype`, its globals); a class tag is a workspace class's name or a
 * reference to its definition, nothing else. With `isolate` (stored variables), a text that fails any check
 * becomes a tombstone for that one variable.
 *
 * Like the codec, {@link createDecoder} runs in both realms from its source text, so it is self-contained:
 * what it shares with the codec arrives as `helpers`.
 */
import type { DecodeOptions } from "./codec.ts";

/** What the decoder shares with the codec that creates it. */
export interface DecoderHelpers {
  parseJson(text: string): any;
  /** Sets an own property (`__proto__` included, as data). */
  put(target: any, key: string, value: unknown): void;
  keyPath(path: string, key: string): string;
  fromHex(text: string): Uint8Array;
  TYPED: readonly string[];
  ERRORS: readonly string[];
  /** The realm's global object, for its typed-array and error classes only (names checked against the lists). */
  G: any;
}

/** The codec's `decodeAll`, bound to one realm's hooks. Self-contained: see the module comment. */
export function createDecoder(
  H: any, helpers: DecoderHelpers,
): (entries: Array<[string, string]>, assign?: (name: string, value: unknown) => void, options?: DecodeOptions) => Record<string, unknown> {
  const { parseJson, put, keyPath, fromHex, TYPED, ERRORS, G } = helpers;
  function fail(message: string): never {
    throw new TypeError("malformed value: " + message);
  }
  function shown(value: unknown) {
    const text = typeof value === "string" ? JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value) : typeof value;
    return text === undefined ? "undefined" : text;
  }
  function list(value: any, what: string): any[] {
    if (!Array.isArray(value)) fail(what + " must be a list, got " + shown(value));
    return value;
  }
  function pairs(value: any, what: string): any[] {
    for (const pair of list(value, what)) if (!Array.isArray(pair) || pair.length !== 2) fail(what + " must hold [key, value] pairs");
    return value;
  }
  function text(value: any, what: string): string {
    if (typeof value !== "string") fail(what + " must be a string, got " + shown(value));
    return value;
  }
  // A decoded object whose `then` is callable would be taken for a promise by any `await` or
  // `Promise.resolve` of the realm (an async method returning it never settles): refused where the hooks say.
  function property(target: any, key: string, value: unknown) {
    if (key === "then" && typeof value === "function" && H.refuseThenables) {
      throw new TypeError("a value whose 'then' is a function cannot cross into the host (it would be taken for a promise)");
    }
    put(target, key, value);
  }
  const isIndex = (value: any) => typeof value === "number" && Number.isInteger(value) && value >= 0;
  const NUMBERS = ["NaN", "Infinity", "-Infinity", "-0"];
  const isFiniteNumber = Number.isFinite;
  // A missing item, only in a list (`{ "$": "hole" }`).
  const isHole = (item: any) => item !== null && typeof item === "object" && item.$ === "hole";
  // Array nodes holding only finite numbers: the parsed list is the decoded array, no copy made.
  const numberLists = new WeakSet<object>();

  /** Checks one inline value of graph `root` (`length` nodes); collects its cross-variable references. */
  function checkValue(value: any, length: number, xrefs: any[]) {
    if (value === null || typeof value !== "object") {
      if (typeof value === "number" && !Number.isFinite(value)) fail("a number must be finite");
      return;
    }
    if (Array.isArray(value)) fail("a list must be a node, not written in place");
    switch (value.$) {
      case "num": if (NUMBERS.indexOf(value.v) < 0) fail("unknown number " + shown(value.v)); return;
      case "undef": return;
      case "big": {
        const digits = text(value.x !== undefined ? value.x : value.v, "a BigInt");
        if (!(value.x !== undefined ? /^-?[0-9a-f]+$/ : /^-?[0-9]+$/).test(digits)) fail("a BigInt must be written in digits");
        if (H.maxBigIntDigits && digits.length > H.maxBigIntDigits) {
          throw new RangeError("a BigInt of " + digits.length + " digits cannot cross the sandbox boundary (at most " + H.maxBigIntDigits + ")");
        }
        return;
      }
      case "ref": if (!isIndex(value.i) || value.i >= length) fail("dangling reference to node " + shown(value.i)); return;
      case "xref": text(value.n, "a variable name"); if (!isIndex(value.i)) fail("dangling reference to node " + shown(value.i)); xrefs.push(value); return;
      case "h":
        if (value.id !== undefined ? typeof value.id !== "number" : typeof value.k !== "string") fail("a host reference needs a numeric id or a key");
        if (value.at !== undefined) text(value.at, "a path");
        return;
      case "tomb": text(value.why, "a reason"); if (value.at !== undefined) text(value.at, "a path"); return;
      case "opaque": text(value.d, "a description"); return;
    }
    fail("unknown value tag " + shown(value.$));
  }
  /** Checks one node and the inline values it holds. */
  function checkNode(node: any, length: number, xrefs: any[]) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) fail("a node must be an object");
    const bytes = () => { if (!/^(?:[0-9a-f]{2})*$/.test(text(node.b, "bytes"))) fail("bytes must be hexadecimal pairs"); };
    const values = (items: any[]) => { for (const item of items) checkValue(item, length, xrefs); };
    const properties = () => { for (const pair of pairs(node.p === undefined ? [] : node.p, "properties")) { text(pair[0], "a key"); checkValue(pair[1], length, xrefs); } };
    switch (node.t) {
      case "obj": properties(); break;
      case "err": text(node.name, "an error name"); text(node.msg, "an error message"); properties(); break;
      case "fn": text(node.src, "a definition"); text(node.name, "a name"); properties(); return;
      case "arr": {
        // A list of finite numbers needs no check per item, and is itself the decoded array (see pass 1).
        const items = list(node.v, "items");
        if (items.every(isFiniteNumber)) numberLists.add(node);
        else for (const item of items) if (!isHole(item)) checkValue(item, length, xrefs);
        return;
      }
      case "set": values(list(node.v, "items")); return;
      case "map": for (const pair of pairs(node.v, "entries")) values(pair); return;
      case "date": if (node.v !== null && typeof node.v !== "number") fail("a date must be a number"); return;
      case "re": text(node.src, "a pattern"); text(node.fl, "flags"); if (node.li !== undefined && !isIndex(node.li)) fail("lastIndex must be an index"); return;
      case "ta": if (TYPED.indexOf(node.k) < 0 || typeof G[node.k] !== "function") fail("unknown typed array " + shown(node.k)); bytes(); return;
      case "ab": bytes(); return;
      // Plain data written whole (`codec.ts`): whatever JSON it holds is the value, with no tag read in it.
      case "data": if (node.v === null || typeof node.v !== "object") fail("a data node must hold an object or an array"); return;
      case "tomb": text(node.why, "a reason"); if (node.at !== undefined) text(node.at, "a path"); return;
      default: fail("unknown node type " + shown(node.t));
    }
    // A class tag is a workspace class's name (transfer) or a reference to its definition (persist).
    if (node.c !== undefined && typeof node.c !== "string") {
      if (node.c === null || (node.c.$ !== "ref" && node.c.$ !== "xref")) fail("a class must be a workspace class");
      checkValue(node.c, length, xrefs);
    }
  }

  function decodeAll(entries: Array<[string, string]>, assign?: (name: string, value: unknown) => void, options?: DecodeOptions) {
    const isolate = !!(options && options.isolate);
    const graphs = new Map<string, any>();
    const shells = new Map<string, any[]>();
    // Variables that could not be decoded, with why; with `isolate` each becomes a tombstone on its own.
    const broken = new Map<string, string>();
    const done = new Set<string>();
    const result: Record<string, unknown> = {};
    const tomb = (why: string, path: string) => (H.tombstone ? H.tombstone(why, path) : undefined);
    const reasonOf = (error: any) => (error && error.message !== undefined ? error.name + ": " + error.message : String(error));
    const breakEntry = (name: string, error: any) => {
      if (!isolate) throw error;
      if (!broken.has(name)) broken.set(name, reasonOf(error));
    };
    const keep = (name: string, value: unknown) => {
      done.add(name);
      put(result, name, value);
      if (assign) assign(name, value);
    };
    // Pass 0: parse and check every text; cross-variable references must name a variable of this call.
    const crossRefs = new Map<string, any[]>();
    for (const [name, source] of entries) {
      if (typeof name !== "string" || graphs.has(name) || broken.has(name)) throw new TypeError("decodeAll: duplicate or invalid name " + shown(name));
      try {
        const graph = parseJson(source);
        if (graph === null || typeof graph !== "object" || Array.isArray(graph) || !("v" in graph)) fail("expected a graph { v, o }");
        const nodes = graph.o === undefined ? [] : list(graph.o, "the node table");
        const xrefs: any[] = [];
        for (const node of nodes) checkNode(node, nodes.length, xrefs);
        checkValue(graph.v, nodes.length, xrefs);
        graphs.set(name, { v: graph.v, o: nodes });
        crossRefs.set(name, xrefs);
        if (options && options.sharing) options.sharing(name, xrefs.map((ref) => [ref.n, ref.i]));
      } catch (error) {
        breakEntry(name, error);
      }
    }
    const nodeOf = (ref: any, root: string) => {
      const graph = graphs.get(ref.$ === "ref" ? root : ref.n);
      return graph && graph.o[ref.i];
    };
    for (const [name, xrefs] of crossRefs) {
      try {
        for (const ref of xrefs) {
          if (broken.has(ref.n)) continue;
          const target = graphs.get(ref.n);
          if (!target || ref.i >= target.o.length) fail("dangling reference to " + shown(ref.n) + "#" + ref.i);
        }
        for (const node of graphs.get(name).o) {
          const cls = node.c;
          if (cls === undefined || typeof cls === "string" || (cls.$ === "xref" && broken.has(cls.n))) continue;
          if (nodeOf(cls, name).t !== "fn") fail("a class must be a workspace class");
        }
      } catch (error) {
        breakEntry(name, error);
      }
    }
    const good = () => entries.filter(([name]) => !broken.has(name));
    // A value written as itself needs no path (building one per item was most of decoding a large array).
    const plain = (value: any) => value === null || typeof value !== "object";
    const dec = (value: any, root: string, path: string): any => {
      if (value === null || typeof value !== "object") return value;
      switch (value.$) {
        case "num": return value.v === "-0" ? -0 : Number(value.v);
        case "undef": return undefined;
        case "big": {
          // `x` holds hexadecimal digits; `v` (decimal) is how earlier versions stored BigInts.
          if (value.x === undefined) return BigInt(value.v);
          return value.x.charAt(0) === "-" ? -BigInt("0x" + value.x.slice(1)) : BigInt("0x" + value.x);
        }
        case "ref": return shells.get(root)![value.i];
        case "xref":
          if (broken.has(value.n)) {
            if (options && options.altered) options.altered(root);
            return tomb("it shared a value with " + value.n + ", whose stored value could not be read back", path);
          }
          return shells.get(value.n)![value.i];
        case "h": return H.fromHandle ? H.fromHandle(value, value.at || path) : tomb("a host object", value.at || path);
        case "tomb": return tomb(value.why, value.at || path);
        case "opaque": return H.opaque ? H.opaque(value.d) : undefined;
      }
      return fail("unknown value tag " + shown(value.$));
    };
    // Pass 1: a shell per node. Definitions are evaluated in variable order, and a variable whose value is a
    // definition is assigned at once, so `class B extends A` finds `A`. A definition that fails (its `A` comes
    // later: variables keep the position of their first declaration) is retried once others are assigned.
    const deferred: any[] = [];
    const define = (item: any) => {
      try {
        item.table[item.index] = H.fromDefinition(item.node.src, item.node.name);
        return true;
      } catch (error: any) {
        item.error = reasonOf(error);
        return false;
      }
    };
    const assignDefinition = (name: string) => {
      const v = graphs.get(name).v;
      if (!assign || done.has(name) || broken.has(name) || !v || (v.$ !== "ref" && v.$ !== "xref")) return;
      const root = v.$ === "ref" ? name : v.n;
      const node = nodeOf(v, name);
      const table = shells.get(root);
      if (!node || node.t !== "fn" || !table || table[v.i] === undefined) return;
      keep(name, table[v.i]);
    };
    for (const [name] of good()) {
      const graph = graphs.get(name);
      const table: any[] = [];
      shells.set(name, table);
      try {
        for (const node of graph.o) {
          switch (node.t) {
            case "obj": table.push(node.np ? Object.create(null) : {}); break;
            case "arr": table.push(numberLists.has(node) ? node.v : new Array(node.v.length)); break;
            case "date": table.push(new Date(node.v === null ? NaN : node.v)); break;
            case "re": { const re = new RegExp(node.src, node.fl); re.lastIndex = node.li || 0; table.push(re); break; }
            case "map": table.push(new Map()); break;
            case "set": table.push(new Set()); break;
            case "ta": table.push(new G[node.k](fromHex(node.b).buffer)); break;
            case "ab": table.push(fromHex(node.b).buffer); break;
            case "data": table.push(node.v); break;
            case "err": {
              const Builtin = ERRORS.indexOf(node.name) >= 0 && typeof G[node.name] === "function" ? G[node.name] : Error;
              const error = new Builtin(node.msg);
              if (error.name !== node.name) error.name = node.name;
              table.push(error);
              break;
            }
            case "fn": {
              if (!H.fromDefinition) {
                table.push(tomb("a function", name));
                break;
              }
              const item = { table, index: table.length, node, name, error: "" };
              table.push(undefined);
              if (!define(item)) deferred.push(item);
              break;
            }
            case "tomb": table.push(tomb(node.why, node.at || name)); break;
          }
        }
      } catch (error) {
        breakEntry(name, error);
        continue;
      }
      assignDefinition(name);
    }
    for (let progress = true; deferred.length && progress;) {
      progress = false;
      for (const item of deferred.splice(0)) {
        if (define(item)) progress = true;
        else deferred.push(item);
      }
      for (const [name] of good()) assignDefinition(name);
    }
    for (const item of deferred) {
      item.table[item.index] = tomb("its definition could not be re-declared (" + item.error + ")", item.node.name || item.name);
      if (options && options.altered) options.altered(item.name);
    }
    for (const [name] of good()) assignDefinition(name);
    // Pass 2: fill the shells.
    for (const [name] of good()) {
      const table = shells.get(name)!;
      try {
        graphs.get(name).o.forEach((node: any, index: number) => {
          const shell = table[index];
          switch (node.t) {
            case "obj":
            case "err":
              for (const pair of node.p || []) {
                const key = pair[0];
                const v = pair[1];
                property(shell, key, plain(v) ? v : dec(v, name, keyPath(name, key)));
              }
              if (typeof node.c === "string") {
                if (H.foreignPrototype) Object.setPrototypeOf(shell, H.foreignPrototype(node.c));
              } else if (node.c !== undefined) {
                const cls = dec(node.c, name, name + ".constructor");
                let proto;
                try {
                  proto = typeof cls === "function" ? cls.prototype : undefined;
                } catch {
                  // The class is a tombstone (its definition failed): the instance keeps its data.
                }
                if (proto && typeof proto === "object") Object.setPrototypeOf(shell, proto);
              }
              break;
            case "fn":
              for (const pair of node.p || []) {
                try {
                  property(shell, pair[0], plain(pair[1]) ? pair[1] : dec(pair[1], name, keyPath(name, pair[0])));
                } catch {
                  // The definition is a tombstone: its properties are gone with it.
                }
              }
              break;
            case "arr":
              // A hole is left a hole: the shell was made with the list's length and no items.
              if (!numberLists.has(node)) node.v.forEach((v: any, i: number) => { if (!isHole(v)) shell[i] = plain(v) ? v : dec(v, name, name + "[" + i + "]"); });
              break;
            case "map": for (const pair of node.v) shell.set(dec(pair[0], name, name), dec(pair[1], name, name)); break;
            case "set": for (const v of node.v) shell.add(dec(v, name, name)); break;
          }
        });
        if (!done.has(name)) keep(name, dec(graphs.get(name).v, name, name));
      } catch (error) {
        breakEntry(name, error);
      }
    }
    for (const [name] of entries) {
      if (!broken.has(name) || done.has(name)) continue;
      const why = broken.get(name)!;
      if (options && options.broken) options.broken(name, why);
      keep(name, tomb("its stored value could not be read back (" + why + ")", name));
    }
    return result;
  }

  return decodeAll;
}
