/**
 * @module
 * The workspace codec: turns values into JSON text and back, keeping `undefined`, `BigInt`,
 * `Date`, `RegExp`, `Map`, `Set`, arrays, plain objects, typed arrays, errors, cycles and shared references.
 *
 * The same functions run in two realms: in the host (Node) and inside the sandbox, where their source
 * ({@link codecSource}) is evaluated as part of the guest runtime. That is why {@link createCodec} and its
 * decoder (`codec-decoder.ts`) are self-contained: they may not refer to anything outside their own bodies,
 * and they only use language features both realms have. Their hot loops are written for QuickJS, an
 * interpreter: pairs are read by index (destructuring one goes through the iterator protocol, ~0.7 µs), and
 * long lists of numbers are copied, checked and written by the engine's own functions.
 *
 * Wire format. A *graph* is `{ "v": value, "o": [node, …] }`. Strings, booleans, finite numbers and `null` are
 * themselves; every other value is `{ "$": tag, … }`; objects live in the node table `o` and are referenced by
 * index, so cycles and shared references survive. Graphs encoded together (the variables of one workspace) may
 * point into each other's tables with `{ "$": "xref", "n": name, "i": index }`, which keeps sharing between
 * variables. Host objects are never copied: the realm's hooks turn them into handle references. A value that
 * cannot be kept is a tombstone written in place, `{ "$": "tomb", "why": reason, "at": path }`, so a restored
 * tombstone stored again yields the same text. A missing item of an array is `{ "$": "hole" }` (a list
 * only).
 *
 * Texts are untrusted: decoding checks every field, resolves references only as integers into
 * the tables of the call, and never looks a name up on an object of the realm. Persisting is guarded per
 * variable: a value that cannot even be read (a revoked proxy, a detached buffer, a getter that throws,
 * nesting deeper than the encoder can follow) makes that one variable a tombstone.
 */

import { createDecoder } from "./codec-decoder.ts";

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
  /**
   * Refuse to decode an object whose `then` is a function (only the host's own functions, reached through
   * handles, are callable there). The host sets it: such a value would be adopted as a promise by the
   * application's `await` and never settle.
   */
  refuseThenables?: boolean;
  /** Turns a JSON text into data; the realm's own `JSON.parse`. */
  parse?(text: string): unknown;
  /**
   * Most digits a decoded `BigInt` may have. The host sets it: texts from the guest are untrusted, and
   * parsing or printing a BigInt of millions of digits would stall the worker.
   */
  maxBigIntDigits?: number;
}

/** Options of {@link Codec.decodeAll}. */
export interface DecodeOptions {
  /**
   * Stored texts: a variable whose text cannot be decoded becomes a tombstone on its own (references to it
   * from other variables too) instead of failing the whole call.
   */
  isolate?: boolean;
  /** Told about each variable `isolate` turned into a tombstone, with why. */
  broken?(name: string, reason: string): void;
  /**
   * Told, for each text that parses, where it refers into other variables (`xref`s, as `[name, node index]`,
   * repeats included): the values it shares with them, as the decoder itself reads them.
   */
  sharing?(name: string, refs: Array<[string, number]>): void;
  /**
   * Told about each variable that decoded to something other than what its text says, so that encoding it
   * again gives another text: a definition in it that could not be re-declared, a reference into a variable
   * whose text could not be read back (those variables themselves are told to `broken`).
   */
  altered?(name: string): void;
}

/** The codec's operations, bound to one realm's hooks. */
export interface Codec {
  /**
   * Encodes named roots together; returns one JSON text per name, plus what could not be kept, and where each
   * text refers into the tables of the texts before it (its `xref`s as `[name, node index]`, repeats
   * included). In `persist` mode a root whose value cannot be read becomes a tombstone of its own; in
   * `transfer` mode that throws.
   */
  encodeAll(entries: Array<[string, unknown]>, mode: CodecMode): { texts: Record<string, string>; problems: CodecProblem[]; refs: Record<string, Array<[string, number]>> };
  /** Decodes texts produced by `encodeAll` (in the same order), resolving references between them. */
  decodeAll(entries: Array<[string, string]>, assign?: (name: string, value: unknown) => void, options?: DecodeOptions): Record<string, unknown>;
  /** Encodes one value for transfer. */
  encode(value: unknown, mode?: CodecMode): string;
  /** Decodes one value produced by `encode`. */
  decode(text: string): unknown;
}

/**
 * Creates a codec for one realm. Self-contained apart from its decoder (see the module comment and
 * {@link codecSource}); `makeDecoder` is only passed where the decoder is not in scope by that name.
 */
export function createCodec(hooks: CodecHooks, makeDecoder: typeof createDecoder = createDecoder): Codec {
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
  // Deepest nesting of objects the encoder follows (its recursion must end well before the stack does).
  const MAX_DEPTH = 1000;
  const TOO_DEEP = "it is nested too deeply to be saved";
  // Arrays at least this long are copied and, when they hold only finite numbers, written by the engine. Not
  // longer ones: the engine's own loops cannot be interrupted, and a sparse array's length costs agent code
  // nothing (`a.length = 2 ** 32 - 1`); the item-by-item loop stops at the time limit. 100,000 items take the
  // engine's functions ~40 ms here.
  const NATIVE_MIN_LENGTH = 16;
  const NATIVE_MAX_LENGTH = 100_000;
  const isFiniteNumber = Number.isFinite;
  // A missing item of an array (`[1, , 3]`), which a restored array must not have as `undefined`.
  const HOLE = { $: "hole" };
  const DETACHED = "a detached ArrayBuffer (its contents were transferred away)";
  // Throws `error` (what a transfer reports), carrying the reason a persisted variable's tombstone gives.
  function refuse(error: any, why: string): never {
    error.codecReason = why;
    throw error;
  }

  function isSimple(value: unknown) {
    const type = typeof value;
    return value === null || type === "string" || type === "boolean" ||
      (type === "number" && Number.isFinite(value) && !(value === 0 && 1 / (value as number) < 0));
  }
  // Each byte's two digits, made on first use: a lookup per byte and one join, instead of two appends per byte,
  // halved encoding a typed array in QuickJS.
  let byteDigits: string[] | undefined;
  function toHex(bytes: any) {
    if (!byteDigits) {
      byteDigits = [];
      for (let b = 0; b < 256; b++) byteDigits.push(HEX[b >> 4]! + HEX[b & 15]!);
    }
    const parts = new Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) parts[i] = byteDigits[bytes[i]];
    return parts.join("");
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

  function hasNegativeZero(items: number[]) {
    for (let i = items.indexOf(0); i >= 0; i = items.indexOf(0, i + 1)) if (1 / items[i]! < 0) return true;
    return false;
  }
  // The same text as `JSON.stringify({ v, o: nodes })`, with each array node in `raw` written as its items' text.
  function graphText(v: unknown, nodes: any[], raw: Map<number, string>) {
    const parts: string[] = [];
    let from = 0;
    const run = (to: number) => {
      if (to > from) parts.push(JSON.stringify(nodes.slice(from, to)).slice(1, -1));
    };
    for (const [index, items] of raw) {
      run(index);
      parts.push('{"t":"arr","v":' + items + "}");
      from = index + 1;
    }
    run(nodes.length);
    return '{"v":' + JSON.stringify(v) + ',"o":[' + parts.join(",") + "]}";
  }

  // A root of plain data only is written by the engine's `JSON.stringify` as one `data` node (`{ "t": "data",
  // "v": value }`): copying it costs QuickJS a fraction of building a node per object. Plain data is arrays
  // without holes and objects whose prototype is `Object.prototype`, no more than `DATA_MAX_DEPTH` deep (a text
  // from the guest may nest at most 32 levels), holding only strings, booleans, null and finite numbers other
  // than -0; no object seen twice or in an earlier root, none the hooks hand out as a handle, and no key `$`
  // (texts are scanned for tagged values without parsing: plain data must never look like a tag).
  const DATA_MAX_DEPTH = 24;
  // The copy reads every value of the root once (a getter runs once) into objects of the codec's own. Where the
  // value is not plain data, the copy holds the original value itself (a class instance, a shared object, one
  // nested too deep) and is marked impure: the copy is then encoded node by node, never read from the root again.
  // `copies` pairs each original object with its copy, so sharing and cycles within the root are kept.
  function copyPlain(value: any, depth: number, copies: Map<any, any>, state: any): any {
    const known = copies.get(value);
    if (known !== undefined) {
      state.impure = true;
      return known;
    }
    if (depth > DATA_MAX_DEPTH || state.seen.has(value) || (H.handleOf && H.handleOf(value, state.mode))) {
      state.impure = true;
      return value;
    }
    if (Array.isArray(value)) {
      const length = value.length;
      const copy = new Array(length);
      copies.set(value, copy);
      for (let i = 0; i < length; i++) {
        const v = value[i];
        const t = typeof v;
        if (t === "string" || t === "boolean" || v === null || (t === "number" && v - v === 0 && (v !== 0 || 1 / v > 0))) copy[i] = v;
        else if (t === "object") copy[i] = copyPlain(v, depth + 1, copies, state);
        else {
          state.impure = true;
          // A missing item stays missing in the copy.
          if (v !== undefined || i in value) copy[i] = v;
        }
      }
      return copy;
    }
    if (Object.getPrototypeOf(value) !== objectProto) {
      state.impure = true;
      return value;
    }
    const copy: any = {};
    copies.set(value, copy);
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = value[key];
      const t = typeof v;
      // (`put` written out for the common key: a call per field costs QuickJS more than the test.)
      if (key === "$" || key === "__proto__") {
        state.impure = true;
        put(copy, key, t === "object" && v !== null ? copyPlain(v, depth + 1, copies, state) : v);
        continue;
      }
      if (t === "string" || t === "boolean" || v === null || (t === "number" && v - v === 0 && (v !== 0 || 1 / v > 0))) copy[key] = v;
      else if (t === "object") copy[key] = copyPlain(v, depth + 1, copies, state);
      else {
        state.impure = true;
        copy[key] = v;
      }
    }
    return copy;
  }

  function encodeAll(entries: Array<[string, unknown]>, mode: string) {
    // A root written as a `data` node has no node per object but its root, so a later root cannot refer inside
    // it: when some do, the call starts again with those roots written node by node (once: a root written node
    // by node makes no other root share inside a data node; were one found, every root is written node by node).
    // Whether a root is a `data` node thus depends only on roots that share a value with it below its root, and
    // the incremental collect always encodes those together (they are one group); roots sharing only its root
    // may be left out, as they are for any root.
    const noData = new Set<string>();
    for (;;) {
      const result = encodeEntries(entries, mode, noData);
      if (!result.sharedInside) return result;
      const before = noData.size;
      result.sharedInside.forEach((name: string) => noData.add(name));
      if (noData.size === before) for (let i = 0; i < entries.length; i++) noData.add(entries[i]![0]);
    }
  }

  // The texts of `entries`, or (`sharedInside`) the names of the roots written as `data` nodes that a later root
  // shares a value inside of.
  function encodeEntries(entries: Array<[string, unknown]>, mode: string, noData: Set<string>): any {
    // Objects seen in earlier roots are referenced, not copied again: sharing between variables survives.
    const seen = new Map<any, any>();
    const problems: any[] = [];
    const texts: Record<string, string> = {};
    const refs: Record<string, Array<[string, number]>> = {};
    const sharedInside = new Set<string>();
    for (const [name, root] of entries) {
      // The originals of a copied root's objects, paired with their copies.
      let copies: Map<any, any> | undefined;
      let source = root;
      let unreadable: { error: any } | undefined;
      if (root !== null && typeof root === "object" && !noData.has(name)) {
        copies = new Map();
        const state = { seen, mode, impure: false };
        try {
          source = copyPlain(root, 1, copies, state);
        } catch (error: any) {
          // Unreadable (a revoked proxy, a getter that throws): thrown below, where the encoder reports it.
          unreadable = { error };
        }
        if (!unreadable && !state.impure) {
          put(texts, name, '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":' + JSON.stringify(source) + "}]}");
          put(refs, name, []);
          // Its root is node 0, which later roots refer to as to any root; the objects inside have no node.
          const inside = { root: name, index: -1 };
          for (const original of copies.keys()) seen.set(original, original === root ? { root: name, index: 0 } : inside);
          continue;
        }
      }
      const nodes: any[] = [];
      // The items of array nodes the engine wrote as text, by node index (see `graphText`).
      let raw: Map<number, string> | undefined;
      const into: Array<[string, number]> = [];
      let depth = 0;
      const enc = (value: any, path: string): any => {
        if (value === null || (typeof value !== "object" && typeof value !== "function")) return encodeValue(value, path);
        if (++depth > MAX_DEPTH) refuse(new RangeError("a value nested more than " + MAX_DEPTH + " objects deep cannot be kept"), TOO_DEEP);
        const encoded = encodeValue(value, path);
        depth--;
        return encoded;
      };
      // A property's value; plain strings, booleans, finite numbers and null are themselves, and skip the path
      // (building one per item was most of the cost of encoding a large array or object).
      const item = (value: any, path: string, key: string): any => (isSimple(value) ? value : enc(value, keyPath(path, key)));
      // A tombstone is written in place, the same way whether the value is new or a tombstone restored earlier,
      // so storing it again yields the same text (and no repeated notice).
      const lost = (why: string, path: string) => {
        problems.push({ path, reason: why });
        return { $: "tomb", why, at: path };
      };
      // Takes back the node just reserved for `value`: it is written in place instead. (Neither helper is made
      // per value: in QuickJS a closure costs microseconds, and the locals it captures get slower to reach.)
      const unshare = (value: any, inPlace: any) => {
        nodes.pop();
        seen.delete(value);
        return inPlace;
      };
      const encodeValue = (value: any, path: string): any => {
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
        if (type === "symbol") return mode === "transfer" ? { $: "opaque", d: String(value) } : lost("a Symbol", path);
        const known = seen.get(value);
        if (known) {
          if (known.index < 0) {
            // This pass's texts are thrown away; it goes on only to find every such root.
            sharedInside.add(known.root);
            return null;
          }
          if (known.root === name) return { $: "ref", i: known.index };
          into.push([known.root, known.index]);
          return { $: "xref", n: known.root, i: known.index };
        }
        const handle = H.handleOf ? H.handleOf(value, mode) : undefined;
        if (handle) {
          if (handle.id === undefined && handle.k === undefined) return lost(handle.why, path);
          // A persisted reference remembers where it was, for the notice when it cannot be re-attached.
          return mode === "persist" ? { $: "h", ...handle, at: path } : { $: "h", ...handle };
        }
        const index = nodes.length;
        const node: any = {};
        nodes.push(node);
        seen.set(value, { root: name, index });
        const ref = { $: "ref", i: index };
        if (type === "function") {
          const source = mode === "persist" && H.definitionOf ? H.definitionOf(value) : undefined;
          if (source === undefined) {
            if (mode === "transfer") return unshare(value, { $: "opaque", d: opaqueFunction(value) });
            return unshare(value, lost("a function that is not a top-level declaration (closure over local state)", path));
          }
          node.t = "fn";
          node.src = source;
          node.name = typeof value.name === "string" ? value.name : "";
          // Own enumerable properties (static fields, `f.count = 1`) would otherwise reset to the source's.
          const keys = Object.keys(value);
          if (keys.length) node.p = keys.map((key) => [key, item(value[key], path, key)]);
          return ref;
        }
        if (Array.isArray(value)) {
          node.t = "arr";
          const length = value.length;
          // A long array is read once, by the engine, into an array of the codec's own (an interpreted loop cost
          // QuickJS twice as much). `concat` on a fresh array makes no array of agent code's species; a value
          // that does not spread (a proxy saying so) comes out another length and is read item by item instead.
          const native = length >= NATIVE_MIN_LENGTH && length <= NATIVE_MAX_LENGTH;
          const copy: any[] | undefined = native ? ([] as any[]).concat(value) : undefined;
          const source = copy !== undefined && copy.length === length ? copy : value;
          // Only finite numbers and no holes (`every` skips them; `includes` sees them as `undefined`): the
          // engine writes the list, as JSON would (a -0 would come out as 0, so it takes the loop).
          if (source === copy && copy.every(isFiniteNumber) && !copy.includes(undefined) && !hasNegativeZero(copy)) {
            (raw || (raw = new Map())).set(index, "[" + copy.join(",") + "]");
            return ref;
          }
          const items = (node.v = new Array(length));
          if (length < NATIVE_MIN_LENGTH) {
            // A short array (a record's tags): each item is tested here (`isSimple`, written out), which costs
            // less than the four searches after the long loop.
            for (let i = 0; i < length; i++) {
              const v = source[i];
              const type = typeof v;
              const plain = type === "string" || type === "boolean" || v === null || (type === "number" && v - v === 0 && (v !== 0 || 1 / v > 0));
              items[i] = plain ? v : v === undefined && !(i in source) ? HOLE : enc(v, path + "[" + i + "]");
            }
            return ref;
          }
          // The hot loop: a number is copied as it is, and the few numbers JSON cannot hold are found after it
          // by the engine's own searches (in QuickJS, testing each number here cost as much as copying it).
          for (let i = 0; i < length; i++) {
            const v = source[i];
            const type = typeof v;
            items[i] = type === "number" || type === "string" || type === "boolean" || v === null ? v : v === undefined && !(i in source) ? HOLE : enc(v, path + "[" + i + "]");
          }
          if (items.includes(NaN)) for (let i = 0; i < length; i++) if (Number.isNaN(items[i])) items[i] = encodeValue(NaN, path);
          // (Written out twice: a `for…of` over `[Infinity, -Infinity]` made an iterator for every array.)
          for (let i = items.indexOf(Infinity); i >= 0; i = items.indexOf(Infinity, i + 1)) items[i] = encodeValue(Infinity, path);
          for (let i = items.indexOf(-Infinity); i >= 0; i = items.indexOf(-Infinity, i + 1)) items[i] = encodeValue(-Infinity, path);
          for (let i = items.indexOf(0); i >= 0; i = items.indexOf(0, i + 1)) if (1 / items[i] < 0) items[i] = encodeValue(-0, path);
          return ref;
        }
        // A plain object (most are) has none of the classes below on its prototype chain: none is asked for.
        const proto = Object.getPrototypeOf(value);
        const builtin = proto !== objectProto && proto !== null;
        if (builtin && value instanceof Date) {
          node.t = "date";
          const time = value.getTime();
          node.v = Number.isNaN(time) ? null : time;
          return ref;
        }
        if (builtin && value instanceof RegExp) {
          node.t = "re";
          node.src = value.source;
          node.fl = value.flags;
          node.li = value.lastIndex;
          return ref;
        }
        if (builtin && value instanceof Map) {
          node.t = "map";
          node.v = [];
          let i = 0;
          for (const entry of value) {
            const k = entry[0];
            const v = entry[1];
            node.v.push([
              isSimple(k) ? k : enc(k, path + ".keys()[" + i + "]"),
              isSimple(v) ? v : enc(v, path + ".get(" + (typeof k === "string" ? JSON.stringify(k) : "…") + ")"),
            ]);
            i++;
          }
          return ref;
        }
        if (builtin && value instanceof Set) {
          node.t = "set";
          node.v = [];
          let i = 0;
          for (const v of value) {
            node.v.push(isSimple(v) ? v : enc(v, path + ".values()[" + i + "]"));
            i++;
          }
          return ref;
        }
        const typed = builtin ? typedName(value) : undefined;
        if (typed) {
          node.t = "ta";
          node.k = typed;
          if (value.buffer.detached === true) refuse(new TypeError(DETACHED), "it holds " + DETACHED);
          node.b = toHex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
          return ref;
        }
        if (builtin && value instanceof ArrayBuffer) {
          node.t = "ab";
          if ((value as any).detached === true) refuse(new TypeError(DETACHED), "it holds " + DETACHED);
          node.b = toHex(new Uint8Array(value));
          return ref;
        }
        if (builtin && value instanceof Error) {
          node.t = "err";
          node.name = String(value.name);
          node.msg = String(value.message);
          const cls = mode === "persist" && H.classOf ? H.classOf(value) : undefined;
          if (cls) node.c = enc(cls, path + ".constructor");
          node.p = [];
          for (const key of Object.keys(value)) node.p.push([key, item((value as any)[key], path, key)]);
          return ref;
        }
        let classRef: any;
        if (builtin) {
          const cls = H.classOf ? H.classOf(value) : undefined;
          if (!cls) {
            const why = describe(value);
            return unshare(value, mode === "transfer" ? { $: "opaque", d: why.split(" (")[0] } : lost(why, path));
          }
          classRef = mode === "persist" ? enc(cls, path + ".constructor") : String(cls.name || "Object");
        }
        node.t = "obj";
        if (proto === null) node.np = 1;
        if (classRef !== undefined) node.c = classRef;
        // `item`, written out with `isSimple` inline: two calls per field cost QuickJS more than the test.
        const keys = Object.keys(value);
        const p = (node.p = new Array(keys.length));
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const v = value[key];
          const t = typeof v;
          p[i] = [key, t === "string" || t === "boolean" || v === null || (t === "number" && v - v === 0 && (v !== 0 || 1 / v > 0)) ? v : enc(v, keyPath(path, key))];
        }
        return ref;
      };
      const problemCount = problems.length;
      try {
        if (unreadable) throw unreadable.error;
        const v = enc(source, name);
        put(texts, name, raw ? graphText(v, nodes, raw) : JSON.stringify(nodes.length ? { v, o: nodes } : { v }));
        put(refs, name, into);
        // Later roots find the originals, as the objects this text holds.
        if (copies) {
          for (const [original, copy] of copies) {
            const where = seen.get(copy);
            if (where) seen.set(original, where);
          }
        }
      } catch (error: any) {
        if (mode !== "persist") throw error;
        // This variable cannot be kept, the others can: it becomes a tombstone, and nothing may share with it.
        for (const [value, where] of seen) if (where.root === name) seen.delete(value);
        problems.length = problemCount;
        let reason: string;
        try {
          reason = error instanceof Error ? error.name + ": " + error.message : "a thrown " + typeof error;
        } catch {
          reason = "an error that could not be read";
        }
        // The encoder recurses: a value nested deeper than the guest's stack allows reads as "too deep" too.
        const tooDeep = error instanceof RangeError && /call stack|stack overflow/i.test(reason);
        // QuickJS throws `null` when an allocation fails and it cannot even make the error.
        const outOfMemory = error === null || error === undefined || /out of memory/i.test(reason);
        let why = tooDeep ? TOO_DEEP : "it could not be read (" + (reason.length > 200 ? reason.slice(0, 200) + "…" : reason) + ")";
        if (outOfMemory) why = "the workspace ran out of memory while saving it";
        if (error && typeof error.codecReason === "string") why = error.codecReason;
        problems.push({ path: name, reason: why });
        put(texts, name, JSON.stringify({ v: { $: "tomb", why, at: name } }));
        put(refs, name, []);
      }
    }
    if (sharedInside.size) return { sharedInside };
    return { texts, problems, refs };
  }

  const decodeAll = makeDecoder(H, { parseJson, put, keyPath, fromHex, TYPED, ERRORS, G });

  return {
    encodeAll: encodeAll as Codec["encodeAll"],
    decodeAll,
    // Host calls mostly carry a few primitives: those skip the graph machinery in both directions.
    encode(value: unknown, mode?: CodecMode) {
      if (isSimple(value)) return '{"v":' + JSON.stringify(value) + "}";
      if (Array.isArray(value) && value.length <= NATIVE_MAX_LENGTH && value.every(isSimple) && !value.includes(undefined)) return '{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":' + JSON.stringify(value) + "}]}";
      return encodeAll([["$", value]], mode || "transfer").texts.$;
    },
    decode(text: string) {
      // Texts without tags (nearly every host call) skip the graph machinery; they hold plain JSON data only.
      if (text.indexOf('"$"') < 0) {
        const graph = parseJson(text);
        if (graph !== null && typeof graph === "object" && !Array.isArray(graph) && graph.o === undefined && "v" in graph) return graph.v;
      } else if (text.startsWith('{"v":{"$":"ref","i":0},"o":[{"t":"data","v":')) {
        // Plain data written whole: its value is the data, whatever it holds (any other form is checked below).
        const graph = parseJson(text);
        const node = graph !== null && typeof graph === "object" && Array.isArray(graph.o) && graph.o.length === 1 ? graph.o[0] : undefined;
        const value = node !== null && typeof node === "object" && node.t === "data" ? node.v : undefined;
        if (value !== null && typeof value === "object" && graph.v && graph.v.$ === "ref" && graph.v.i === 0) return value;
      } else if (text.startsWith('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":') && text.indexOf('"$"', 20) < 0) {
        const graph = parseJson(text);
        const node = Array.isArray(graph.o) && graph.o.length === 1 ? graph.o[0] : undefined;
        if (node && node.t === "arr" && Array.isArray(node.v)) return node.v;
      }
      return decodeAll([["$", text]]).$;
    },
  };
}

/**
 * The codec as source text for another realm: an expression whose value is {@link createCodec} with its
 * decoder in scope.
 */
export function codecSource(): string {
  return `(() => { const createDecoder = ${createDecoder.toString()}; return ${createCodec.toString()}; })()`;
}
