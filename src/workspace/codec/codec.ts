/**
 * @module
 * The workspace codec (DESIGN.md §6.2): turns values into JSON text and back, keeping `undefined`, `BigInt`,
 * `Date`, `RegExp`, `Map`, `Set`, arrays, plain objects, typed arrays, errors, cycles and shared references.
 *
 * The same function runs in two realms: in the host (Node) and inside the sandbox, where its source is
 * evaluated as part of the guest runtime. That is why {@link createCodec} is self-contained: it may not refer
 * to anything outside its own body, and it only uses language features both realms have.
 *
 * Wire format. A *graph* is `{ "v": value, "o": [node, …] }`. Strings, booleans, finite numbers and `null` are
 * themselves; every other value is `{ "$": tag, … }`; objects live in the node table `o` and are referenced by
 * index, so cycles and shared references survive. Graphs encoded together (the variables of one workspace) may
 * point into each other's tables with `{ "$": "xref", "n": name, "i": index }`, which keeps sharing between
 * variables. Host objects are never copied: the realm's hooks turn them into handle references. A value that
 * cannot be kept is a tombstone written in place, `{ "$": "tomb", "why": reason, "at": path }`, so a restored
 * tombstone stored again yields the same text.
 */

/** How a value leaves a realm: `transfer` crosses the sandbox boundary now, `persist` goes to the store. */
export type CodecMode = "transfer" | "persist";

/** A value that could not be kept, and where it was. */
export interface CodecProblem {
  /** Where the value was, e.g. `m.get(1).handler` (starts with the variable's name). */
  path: string;
  reason: string;
}

/** Realm-specific behaviour the codec delegates to. All hooks are optional. */
export interface CodecHooks {
  /**
   * A handle reference for a value that must not be copied (host objects), or `undefined` to copy it. A
   * reference with only `why` makes the value a tombstone with that reason.
   */
  handleOf?(value: object, mode: CodecMode): Record<string, unknown> | undefined;
  /** The value for a handle reference (the inverse of `handleOf`). */
  fromHandle?(ref: Record<string, unknown>, path: string): unknown;
  /** Source text of a function or class the workspace can re-declare, or `undefined`. */
  definitionOf?(fn: Function): string | undefined;
  /** Re-declares a function or class from its source. */
  fromDefinition?(source: string, name: string): unknown;
  /** The class (a value of this realm) of an instance, when the class is itself kept as a definition. */
  classOf?(value: object): Function | undefined;
  /** The prototype for an instance of a class this realm does not have (a guest class instance in transfer). */
  foreignPrototype?(className: string): object | null;
  /** The value standing for something that cannot be copied across in transfer mode (a closure, a Promise). */
  opaque?(description: string): unknown;
  /** The value that replaces something that could not be kept, when decoding. */
  tombstone?(reason: string, path: string): unknown;
  /** Turns a JSON text into data; the realm's own `JSON.parse`. */
  parse?(text: string): unknown;
  /**
   * Most digits a decoded `BigInt` may have. The host sets it: texts from the guest are untrusted, and
   * parsing or printing a BigInt of millions of digits would stall the worker.
   */
  maxBigIntDigits?: number;
}

/** The codec's operations, bound to one realm's hooks. */
export interface Codec {
  /** Encodes named roots together; returns one JSON text per name, plus what could not be kept. */
  encodeAll(entries: Array<[string, unknown]>, mode: CodecMode): { texts: Record<string, string>; problems: CodecProblem[] };
  /** Decodes texts produced by `encodeAll` (in the same order), resolving references between them. */
  decodeAll(entries: Array<[string, string]>, assign?: (name: string, value: unknown) => void): Record<string, unknown>;
  /** Encodes one value for transfer. */
  encode(value: unknown, mode?: CodecMode): string;
  /** Decodes one value produced by `encode`. */
  decode(text: string): unknown;
}

/** Creates a codec for one realm. Self-contained: see the module comment. */
export function createCodec(hooks: CodecHooks): Codec {
  const H: any = hooks || {};
  const parseJson = H.parse || JSON.parse;
  const TYPED = [
    "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
    "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
  ];
  // Restored errors keep their built-in class, so `e instanceof TypeError` still holds.
  const ERRORS = ["TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError"];
  const G: any = typeof globalThis !== "undefined" ? globalThis : {};
  const objectProto = Object.prototype;
  const HEX = "0123456789abcdef";

  function isSimple(value: unknown) {
    const type = typeof value;
    return value === null || type === "string" || type === "boolean" ||
      (type === "number" && Number.isFinite(value) && !(value === 0 && 1 / (value as number) < 0));
  }
  function toHex(bytes: any) {
    let out = "";
    for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
    return out;
  }
  function fromHex(text: string) {
    const bytes = new Uint8Array(text.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.substr(i * 2, 2), 16);
    return bytes;
  }
  function typedName(value: any) {
    if (!ArrayBuffer.isView(value) || value instanceof DataView) return undefined;
    for (const name of TYPED) if (G[name] && value instanceof G[name]) return name;
    return undefined;
  }
  function describe(value: any) {
    if (typeof value === "function") return "a function";
    if (typeof value === "symbol") return "a Symbol";
    if (typeof Promise !== "undefined" && value instanceof Promise) return "a Promise (await it before storing its value)";
    if (typeof WeakMap !== "undefined" && (value instanceof WeakMap || value instanceof WeakSet)) return "a WeakMap or WeakSet";
    const proto = Object.getPrototypeOf(value);
    const ctor = proto && proto.constructor;
    const name = ctor && typeof ctor.name === "string" && ctor.name ? ctor.name : "Object";
    return "an instance of " + name + " (only plain data, workspace classes and host objects can be kept)";
  }
  function opaqueFunction(value: any) {
    const isClass = /^class\b/.test(Function.prototype.toString.call(value));
    return (isClass ? "class" : "Function") + (value.name ? " " + value.name : "");
  }
  // `__proto__` arrives as an own key of the data; assigning it would replace the object's prototype.
  function put(target: any, key: string, value: unknown) {
    if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    else target[key] = value;
  }
  function keyPath(path: string, key: string) {
    return /^[A-Za-z_$][\w$]*$/.test(key) ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
  }

  function encodeAll(entries: Array<[string, unknown]>, mode: string) {
    // Objects seen in earlier roots are referenced, not copied again: sharing between variables survives.
    const seen = new Map<any, any>();
    const problems: any[] = [];
    const texts: Record<string, string> = {};
    for (const [name, root] of entries) {
      const nodes: any[] = [];
      const enc = (value: any, path: string): any => {
        const type = typeof value;
        if (value === null || type === "string" || type === "boolean") return value;
        if (type === "number") {
          if (Number.isNaN(value)) return { $: "num", v: "NaN" };
          if (value === Infinity) return { $: "num", v: "Infinity" };
          if (value === -Infinity) return { $: "num", v: "-Infinity" };
          if (value === 0 && 1 / value < 0) return { $: "num", v: "-0" };
          return value;
        }
        if (type === "undefined") return { $: "undef" };
        // Hexadecimal: the engine converts a BigInt to decimal in quadratic time (seconds for a large one).
        if (type === "bigint") return { $: "big", x: value < 0 ? "-" + (-value).toString(16) : value.toString(16) };
        // A tombstone is written in place, the same way whether the value is new or a tombstone restored
        // earlier, so storing it again yields the same text (and no repeated notice).
        const lost = (why: string) => {
          problems.push({ path, reason: why });
          return { $: "tomb", why, at: path };
        };
        if (type === "symbol") return mode === "transfer" ? { $: "opaque", d: String(value) } : lost("a Symbol");
        const known = seen.get(value);
        if (known) return known.root === name ? { $: "ref", i: known.index } : { $: "xref", n: known.root, i: known.index };
        const handle = H.handleOf ? H.handleOf(value, mode) : undefined;
        if (handle) {
          if (handle.id === undefined && handle.k === undefined) return lost(handle.why);
          // A persisted reference remembers where it was, for the notice when it cannot be re-attached.
          return mode === "persist" ? { $: "h", ...handle, at: path } : { $: "h", ...handle };
        }
        const index = nodes.length;
        const node: any = {};
        nodes.push(node);
        seen.set(value, { root: name, index });
        const ref = { $: "ref", i: index };
        // Takes back the node just reserved for `value`: it is written in place instead.
        const unshare = (inPlace: any) => {
          nodes.pop();
          seen.delete(value);
          return inPlace;
        };
        if (type === "function") {
          const source = mode === "persist" && H.definitionOf ? H.definitionOf(value) : undefined;
          if (source === undefined) {
            if (mode === "transfer") return unshare({ $: "opaque", d: opaqueFunction(value) });
            return unshare(lost("a function that is not a top-level declaration (closure over local state)"));
          }
          node.t = "fn";
          node.src = source;
          node.name = typeof value.name === "string" ? value.name : "";
          // Own enumerable properties (static fields, `f.count = 1`) would otherwise reset to the source's.
          const keys = Object.keys(value);
          if (keys.length) node.p = keys.map((key) => [key, enc(value[key], keyPath(path, key))]);
          return ref;
        }
        if (Array.isArray(value)) {
          node.t = "arr";
          node.v = [];
          for (let i = 0; i < value.length; i++) node.v.push(enc(value[i], path + "[" + i + "]"));
          return ref;
        }
        if (value instanceof Date) {
          node.t = "date";
          const time = value.getTime();
          node.v = Number.isNaN(time) ? null : time;
          return ref;
        }
        if (value instanceof RegExp) {
          node.t = "re";
          node.src = value.source;
          node.fl = value.flags;
          node.li = value.lastIndex;
          return ref;
        }
        if (value instanceof Map) {
          node.t = "map";
          node.v = [];
          let i = 0;
          for (const [k, v] of value) {
            node.v.push([enc(k, path + ".keys()[" + i + "]"), enc(v, path + ".get(" + (typeof k === "string" ? JSON.stringify(k) : "…") + ")")]);
            i++;
          }
          return ref;
        }
        if (value instanceof Set) {
          node.t = "set";
          node.v = [];
          let i = 0;
          for (const v of value) node.v.push(enc(v, path + ".values()[" + i++ + "]"));
          return ref;
        }
        const typed = typedName(value);
        if (typed) {
          node.t = "ta";
          node.k = typed;
          node.b = toHex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
          return ref;
        }
        if (value instanceof ArrayBuffer) {
          node.t = "ab";
          node.b = toHex(new Uint8Array(value));
          return ref;
        }
        if (value instanceof Error) {
          node.t = "err";
          node.name = String(value.name);
          node.msg = String(value.message);
          const cls = mode === "persist" && H.classOf ? H.classOf(value) : undefined;
          if (cls) node.c = enc(cls, path + ".constructor");
          node.p = [];
          for (const key of Object.keys(value)) node.p.push([key, enc((value as any)[key], keyPath(path, key))]);
          return ref;
        }
        const proto = Object.getPrototypeOf(value);
        let classRef: any;
        if (proto !== objectProto && proto !== null) {
          const cls = H.classOf ? H.classOf(value) : undefined;
          if (!cls) {
            const why = describe(value);
            return unshare(mode === "transfer" ? { $: "opaque", d: why.split(" (")[0] } : lost(why));
          }
          classRef = mode === "persist" ? enc(cls, path + ".constructor") : String(cls.name || "Object");
        }
        node.t = "obj";
        if (proto === null) node.np = 1;
        if (classRef !== undefined) node.c = classRef;
        node.p = [];
        for (const key of Object.keys(value)) node.p.push([key, enc(value[key], keyPath(path, key))]);
        return ref;
      };
      const v = enc(root, name);
      texts[name] = JSON.stringify(nodes.length ? { v, o: nodes } : { v });
    }
    return { texts, problems };
  }

  function decodeAll(entries: Array<[string, string]>, assign?: (name: string, value: unknown) => void) {
    const graphs: Record<string, any> = {};
    const shells: Record<string, any[]> = {};
    const result: Record<string, unknown> = {};
    const at = (root: string, index: number) => {
      const table = shells[root];
      if (!table || index >= table.length) throw new Error("dangling reference to " + root + "#" + index);
      return table[index];
    };
    const dec = (value: any, root: string, path: string): any => {
      if (value === null || typeof value !== "object") return value;
      switch (value.$) {
        case "num": return value.v === "-0" ? -0 : Number(value.v);
        case "undef": return undefined;
        case "big": {
          // `x` holds hexadecimal digits; `v` (decimal) is how earlier versions stored BigInts.
          const digits = String(value.x !== undefined ? value.x : value.v);
          if (H.maxBigIntDigits && digits.length > H.maxBigIntDigits) {
            throw new RangeError("a BigInt of " + digits.length + " digits cannot cross the sandbox boundary (at most " + H.maxBigIntDigits + ")");
          }
          if (value.x === undefined) return BigInt(digits);
          return digits.charAt(0) === "-" ? -BigInt("0x" + digits.slice(1)) : BigInt("0x" + digits);
        }
        case "ref": return at(root, value.i);
        case "xref": return at(value.n, value.i);
        case "h": return H.fromHandle ? H.fromHandle(value, value.at || path) : tomb("a host object", value.at || path);
        case "tomb": return tomb(value.why, value.at || path);
        case "opaque": return H.opaque ? H.opaque(value.d) : undefined;
        default: throw new Error("unknown value tag " + JSON.stringify(value.$));
      }
    };
    const tomb = (why: string, path: string) => (H.tombstone ? H.tombstone(why, path) : undefined);
    // Pass 1: a shell per node. Definitions are evaluated in variable order, and a variable whose value is a
    // definition is assigned at once, so `class B extends A` finds `A`. A definition that fails (its `A` comes
    // later: variables keep the position of their first declaration) is retried once others are assigned.
    const deferred: any[] = [];
    const define = (item: any) => {
      try {
        item.table[item.index] = H.fromDefinition(item.node.src, item.node.name);
        return true;
      } catch (error: any) {
        item.error = error && error.message !== undefined ? error.name + ": " + error.message : String(error);
        return false;
      }
    };
    const assignDefinition = (name: string) => {
      const v = graphs[name].v;
      if (!assign || name in result || !v || (v.$ !== "ref" && v.$ !== "xref")) return;
      const root = v.$ === "ref" ? name : v.n;
      const node = graphs[root] && (graphs[root].o || [])[v.i];
      const shell = shells[root] && shells[root][v.i];
      if (!node || node.t !== "fn" || shell === undefined) return;
      assign(name, shell);
      result[name] = shell;
    };
    for (const [name, text] of entries) {
      const graph = parseJson(text);
      graphs[name] = graph;
      const table: any[] = [];
      shells[name] = table;
      for (const node of graph.o || []) {
        switch (node.t) {
          case "obj": table.push(node.np ? Object.create(null) : {}); break;
          case "arr": table.push(new Array(node.v.length)); break;
          case "date": table.push(new Date(node.v === null ? NaN : node.v)); break;
          case "re": { const re = new RegExp(node.src, node.fl); re.lastIndex = node.li || 0; table.push(re); break; }
          case "map": table.push(new Map()); break;
          case "set": table.push(new Set()); break;
          case "ta": {
            if (TYPED.indexOf(node.k) < 0 || typeof G[node.k] !== "function") throw new Error("unknown typed array " + JSON.stringify(node.k));
            const bytes = fromHex(String(node.b));
            table.push(new G[node.k](bytes.buffer));
            break;
          }
          case "ab": table.push(fromHex(String(node.b)).buffer); break;
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
          default: throw new Error("unknown node type " + JSON.stringify(node.t));
        }
      }
      assignDefinition(name);
    }
    for (let progress = true; deferred.length && progress;) {
      progress = false;
      for (const item of deferred.splice(0)) {
        if (define(item)) progress = true;
        else deferred.push(item);
      }
      for (const [name] of entries) assignDefinition(name);
    }
    for (const item of deferred) {
      item.table[item.index] = tomb("its definition could not be re-declared (" + item.error + ")", item.node.name || item.name);
    }
    for (const [name] of entries) assignDefinition(name);
    // Pass 2: fill the shells.
    for (const [name] of entries) {
      const graph = graphs[name];
      const table = shells[name];
      (graph.o || []).forEach((node: any, index: number) => {
        const shell = table[index];
        switch (node.t) {
          case "obj":
          case "err":
            for (const [key, v] of node.p || []) put(shell, key, dec(v, name, keyPath(name, key)));
            if (node.c !== undefined) {
              if (typeof node.c === "string") {
                if (H.foreignPrototype) Object.setPrototypeOf(shell, H.foreignPrototype(node.c));
              } else {
                const cls = dec(node.c, name, name + ".constructor");
                let proto;
                try {
                  proto = typeof cls === "function" ? cls.prototype : undefined;
                } catch {
                  // The class is a tombstone (its definition failed): the instance keeps its data.
                }
                if (proto) Object.setPrototypeOf(shell, proto);
              }
            }
            break;
          case "fn":
            for (const [key, v] of node.p || []) {
              try {
                put(shell, key, dec(v, name, keyPath(name, key)));
              } catch {
                // The definition is a tombstone: its properties are gone with it.
              }
            }
            break;
          case "arr": node.v.forEach((v: any, i: number) => { shell[i] = dec(v, name, name + "[" + i + "]"); }); break;
          case "map": for (const [k, v] of node.v) shell.set(dec(k, name, name), dec(v, name, name)); break;
          case "set": for (const v of node.v) shell.add(dec(v, name, name)); break;
        }
      });
    }
    for (const [name] of entries) {
      if (name in result) continue;
      const value = dec(graphs[name].v, name, name);
      result[name] = value;
      if (assign) assign(name, value);
    }
    return result;
  }

  return {
    encodeAll: encodeAll as Codec["encodeAll"],
    decodeAll,
    // Host calls mostly carry a few primitives: those skip the graph machinery in both directions.
    encode(value: unknown, mode?: CodecMode) {
      if (isSimple(value)) return '{"v":' + JSON.stringify(value) + "}";
      if (Array.isArray(value) && value.every(isSimple)) return '{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":' + JSON.stringify(value) + "}]}";
      return encodeAll([["$", value]], mode || "transfer").texts.$;
    },
    decode(text: string) {
      if (text.indexOf('"$"') < 0) return parseJson(text).v;
      if (text.startsWith('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":') && text.indexOf('"$"', 20) < 0) return parseJson(text).o[0].v;
      return decodeAll([["$", text]]).$;
    },
  };
}
