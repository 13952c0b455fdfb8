import assert from "node:assert/strict";
import { describe, it } from "node:test";
import vm from "node:vm";
import { codecSource, createCodec, type CodecHooks } from "./codec.ts";

const roundTrip = (value: unknown, hooks: CodecHooks = {}) => {
  const codec = createCodec(hooks);
  return codec.decodeAll(Object.entries(codec.encodeAll([["v", value]], "persist").texts)).v;
};

describe("createCodec", () => {
  it("writes strings, booleans, finite numbers and null as themselves", () => {
    const codec = createCodec({});
    assert.equal(codec.encode("x"), '{"v":"x"}');
    assert.equal(codec.encode(1.5), '{"v":1.5}');
    assert.equal(codec.encode(true), '{"v":true}');
    assert.equal(codec.encode(null), '{"v":null}');
    assert.equal(codec.encode(undefined), '{"v":{"$":"undef"}}');
  });

  it("keeps the numbers JSON cannot", () => {
    const [nz, nan, inf, ninf] = roundTrip([-0, NaN, Infinity, -Infinity]) as number[];
    assert.ok(Object.is(nz, -0));
    assert.ok(Number.isNaN(nan));
    assert.equal(inf, Infinity);
    assert.equal(ninf, -Infinity);
    const fields = roundTrip({ nz: -0, nan: NaN, inf: Infinity, ninf: -Infinity, zero: 0, n: 1.5 }) as Record<string, number>;
    assert.ok(Object.is(fields.nz, -0) && Object.is(fields.zero, 0), "as an object's fields too");
    assert.ok(Number.isNaN(fields.nan) && fields.inf === Infinity && fields.ninf === -Infinity && fields.n === 1.5);
  });

  it("tells where each text refers into the texts before it", () => {
    const shared = { n: 1 };
    const { texts, refs } = createCodec({}).encodeAll([["a", [shared]], ["b", { x: shared, y: shared, own: [] }], ["c", 3]], "persist");
    assert.deepEqual(refs, { a: [], b: [["a", 1], ["a", 1]], c: [] });
    assert.equal(texts.b!.split('"$":"xref"').length - 1, 2, "one reference written per one told");
  });

  it("keeps those numbers inside arrays, wherever they are among others", () => {
    const mixed = [0, -0, 1, NaN, -0, Infinity, 0, -Infinity, NaN, "x", null, undefined, true, [-0, NaN], 2.5, -0];
    const back = roundTrip(mixed) as unknown[];
    assert.equal(back.length, mixed.length);
    mixed.forEach((value, index) => {
      if (Array.isArray(value)) assert.deepEqual(back[index], value);
      else assert.ok(Object.is(back[index], value), `item ${index}: ${String(back[index])} instead of ${String(value)}`);
    });
  });

  it("writes long lists of finite numbers exactly as JSON does, among the other nodes of a graph", () => {
    const first = Array.from({ length: 20 }, (_, i) => i * 1.5 - 7);
    const second = Array.from({ length: 16 }, (_, i) => 2 ** (i * 9) + 0.25);
    const inner = [second, "x"];
    const { texts } = createCodec({}).encodeAll([["v", { a: first, b: inner, c: first, d: [1, 2] }], ["w", [first, 3]]], "persist");
    const expected = {
      v: { $: "ref", i: 0 },
      o: [
        { t: "obj", p: [["a", { $: "ref", i: 1 }], ["b", { $: "ref", i: 2 }], ["c", { $: "ref", i: 1 }], ["d", { $: "ref", i: 4 }]] },
        { t: "arr", v: first },
        { t: "arr", v: [{ $: "ref", i: 3 }, "x"] },
        { t: "arr", v: second },
        { t: "arr", v: [1, 2] },
      ],
    };
    assert.equal(texts.v, JSON.stringify(expected));
    assert.equal(texts.w, JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "arr", v: [{ $: "xref", n: "v", i: 1 }, 3] }] }));
    // Alone, the list is plain data: written whole by the engine, as one data node.
    assert.equal(createCodec({}).encodeAll([["only", first]], "persist").texts.only, JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "data", v: first }] }));
  });

  it("keeps holes, -0, NaN and other values in long lists, and reads each item once", () => {
    const numbers = () => Array.from({ length: 24 }, (_, i) => i);
    const holed = numbers();
    // eslint-disable-next-line @typescript-eslint/no-array-delete -- a hole is what is tested
    delete holed[5];
    const negative = numbers();
    negative[9] = -0;
    const notANumber = numbers();
    notANumber[23] = NaN;
    const mixed: unknown[] = numbers();
    mixed[0] = "zero";
    const [h, n, nan, m] = roundTrip([holed, negative, notANumber, mixed]) as unknown[][];
    assert.equal(h!.length, 24);
    assert.ok(!(5 in h!) && h![6] === 6, "a hole comes back a hole");
    assert.ok(Object.is(n![9], -0));
    assert.ok(Number.isNaN(nan![23]));
    assert.deepEqual(m, mixed);

    let reads = 0;
    const watched = numbers();
    Object.defineProperty(watched, 3, { get: () => (reads++, 3), enumerable: true });
    assert.deepEqual(roundTrip(watched), numbers());
    assert.equal(reads, 1, "a getter runs once");

    // A proxy that says it does not spread is still read item by item.
    const unspread = new Proxy(numbers(), { get: (target, key) => (key === Symbol.isConcatSpreadable ? false : Reflect.get(target, key)) });
    assert.deepEqual(roundTrip(unspread), numbers());
    // A subclass's species is never asked for an array.
    class Guarded extends Array {
      static override get [Symbol.species](): ArrayConstructor {
        throw new Error("species asked");
      }
    }
    assert.deepEqual(roundTrip(Guarded.from(numbers())), numbers());
  });

  it("keeps holes apart from undefined, in short lists and in host calls", () => {
    const codec = createCodec({});
    const holes = [1, , undefined, , 5];
    const back = roundTrip(holes) as unknown[];
    assert.deepEqual(Object.keys(back), ["0", "2", "4"]);
    assert.equal(back.length, 5);
    assert.ok(2 in back && back[2] === undefined);
    assert.deepEqual(Object.keys(codec.decode(codec.encode(holes)) as unknown[]), ["0", "2", "4"], "encode's fast path does not write holes as null");
    assert.deepEqual(codec.decode(codec.encode([1, null, "x"])), [1, null, "x"]);
    // A hole only means something in a list.
    assert.throws(() => codec.decodeAll([["x", '{"v":{"$":"ref","i":0},"o":[{"t":"obj","p":[["a",{"$":"hole"}]]}]}']]), /unknown value tag "hole"/);
  });

  it("decodes a list of finite numbers as one array, shared where it was, and checks other lists item by item", () => {
    const codec = createCodec({});
    const list = [1, 2.5, -3];
    const back = roundTrip({ a: list, b: [list, list] }) as { a: number[]; b: number[][] };
    assert.deepEqual(back.a, list);
    assert.ok(back.b[0] === back.a && back.b[1] === back.a, "one array where there was one");
    const graph = (items: string) => '{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":' + items + "}]}";
    assert.throws(() => codec.decodeAll([["x", graph("[1,1e400]")]]), /a number must be finite/);
    assert.throws(() => codec.decodeAll([["x", graph('[1,{"$":"bogus"}]')]]), /unknown value tag/);
    assert.deepEqual(codec.decodeAll([["x", graph('[1,{"$":"num","v":"-0"},"s"]')]]).x, [1, -0, "s"]);
  });

  it("round-trips undefined, BigInt, Date, RegExp, Map, Set and nesting", () => {
    const re = /a(b)/gy;
    re.lastIndex = 3;
    const value = {
      u: undefined,
      list: [1, undefined],
      big: -(2n ** 70n),
      date: new Date(Date.UTC(2026, 2, 10)),
      invalid: new Date(NaN),
      re,
      map: new Map<unknown, unknown>([[1, "one"], [{ k: 1 }, new Set([1, "a"])]]),
    };
    const back = roundTrip(value) as typeof value;
    assert.deepEqual(back, value);
    assert.ok("u" in back);
    assert.equal(back.re.lastIndex, 3);
    assert.ok(Number.isNaN(back.invalid.getTime()));
  });

  it("round-trips every typed array kind, views and ArrayBuffer", () => {
    const kinds = [
      new Int8Array([-1]), new Uint8Array([255]), new Uint8ClampedArray([255]), new Int16Array([-2]), new Uint16Array([65535]),
      new Int32Array([-3]), new Uint32Array([4294967295]), new Float32Array([1.5]), new Float64Array([Math.PI]),
      new BigInt64Array([-5n]), new BigUint64Array([2n ** 64n - 1n]),
    ];
    const G = globalThis as { Float16Array?: new (values: number[]) => ArrayLike<number> };
    if (G.Float16Array) kinds.push(new G.Float16Array([0.5]) as never);
    const view = new Int16Array([1, 2, 3, 4]).subarray(1, 3);
    const buffer = new Uint8Array([1, 2, 3]).buffer;
    const back = roundTrip({ kinds, view, buffer }) as { kinds: typeof kinds; view: Int16Array; buffer: ArrayBuffer };
    assert.deepEqual(back.kinds, kinds);
    assert.deepEqual(back.view, new Int16Array([2, 3]));
    assert.deepEqual(new Uint8Array(back.buffer), new Uint8Array([1, 2, 3]));
  });

  it("restores errors with their built-in class and fields", () => {
    const error = Object.assign(new TypeError("bad"), { code: 7 });
    const custom = new Error("c");
    custom.name = "Custom";
    const [typed, named] = roundTrip([error, custom]) as [TypeError & { code: number }, Error];
    assert.ok(typed instanceof TypeError);
    assert.equal(typed.message, "bad");
    assert.equal(typed.code, 7);
    assert.equal(named.name, "Custom");
    assert.ok(named instanceof Error);
  });

  it("keeps null prototypes, cycles and shared references", () => {
    const bare = Object.assign(Object.create(null), { a: 1 });
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared, bare };
    cyclic.self = cyclic;
    const back = roundTrip(cyclic) as typeof cyclic;
    assert.equal(back.self, back);
    assert.equal(back.shared, back.again);
    assert.equal(Object.getPrototypeOf(back.bare), null);
  });

  it("keeps sharing between roots encoded together", () => {
    const codec = createCodec({});
    const inner = { n: 1 };
    const { texts } = codec.encodeAll([["a", { inner }], ["b", inner], ["c", [inner]]], "persist");
    assert.match(texts.b!, /"xref"/);
    const back = codec.decodeAll(Object.entries(texts)) as { a: { inner: object }; b: object; c: object[] };
    assert.equal(back.a.inner, back.b);
    assert.equal(back.c[0], back.b);
  });

  it("writes a plain root as one data node unless a later root shares an object inside it", () => {
    const codec = createCodec({});
    const inner = { n: 1 };
    const owner = { inner, list: [1, 2] };
    // Sharing only its root keeps it one data node: the others refer to its node 0.
    const rootOnly = codec.encodeAll([["owner", owner], ["alias", owner], ["keep", { owner }]], "persist").texts;
    assert.equal(rootOnly.owner, '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":{"inner":{"n":1},"list":[1,2]}}]}');
    assert.equal(rootOnly.alias, '{"v":{"$":"xref","n":"owner","i":0}}');
    let back = codec.decodeAll(Object.entries(rootOnly)) as Record<string, any>;
    assert.equal(back.alias, back.owner);
    assert.equal(back.keep.owner, back.owner);
    // An object inside it shared by a later root: it is written node by node, and the sharing kept.
    const inside = codec.encodeAll([["owner", owner], ["part", inner], ["list", [owner.list]]], "persist").texts;
    assert.doesNotMatch(inside.owner!, /"t":"data"/);
    assert.match(inside.part!, /^\{"v":\{"\$":"xref","n":"owner","i":[1-9]\}\}$/);
    back = codec.decodeAll(Object.entries(inside)) as Record<string, any>;
    assert.equal(back.part, back.owner.inner);
    assert.equal(back.list[0], back.owner.list);
    // Several data roots shared inside, one after another: each written node by node, each sharing kept.
    const a = { x: { n: 1 } };
    const c = { y: [1] };
    const chain = codec.encodeAll([["a", a], ["b", a.x], ["c", c], ["d", { y: c.y, x: a.x }], ["e", { plain: true }]], "persist").texts;
    assert.deepEqual(Object.keys(chain).filter((name) => chain[name]!.includes('"t":"data"')), ["e"]);
    back = codec.decodeAll(Object.entries(chain)) as Record<string, any>;
    assert.equal(back.b, back.a.x);
    assert.equal(back.d.x, back.a.x);
    assert.equal(back.d.y, back.c.y);
    // A root sharing an earlier root's objects is no data node either; the earlier one stays one.
    const earlier = codec.encodeAll([["first", inner], ["second", { inner }]], "persist").texts;
    assert.match(earlier.first!, /"t":"data"/);
    assert.match(earlier.second!, /"xref","n":"first","i":0/);
  });

  it("refuses a malformed data node, and reads none of its contents as tags", () => {
    const codec = createCodec({});
    for (const v of ["1", '"text"', "null", "true"]) {
      const text = '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":' + v + "}]}";
      assert.throws(() => codec.decode(text), /^TypeError: malformed value: a data node must hold an object or an array$/, text);
    }
    assert.throws(() => codec.decode('{"v":{"$":"ref","i":0},"o":[{"t":"data"}]}'), /a data node must hold an object or an array/);
    // A reference inside a data node has no node to name.
    assert.throws(() => codec.decodeAll([["a", '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":{"x":{}}}]}'], ["b", '{"v":{"$":"xref","n":"a","i":1}}']]), /dangling reference/);
    // Tags inside are data: no handle, reference or prototype comes out of them.
    const forged = codec.decode('{"v":{"$":"ref","i":0},"o":[{"t":"data","v":{"h":{"$":"h","k":"binding:x"},"r":{"$":"xref","n":"constructor","i":"prototype"},"__proto__":{"polluted":true}}}]}') as any;
    assert.deepEqual(forged.h, { $: "h", k: "binding:x" });
    assert.deepEqual(forged.r, { $: "xref", n: "constructor", i: "prototype" });
    assert.equal(Object.getPrototypeOf(forged), Object.prototype);
    assert.equal(({} as any).polluted, undefined);
  });

  it("reports what it cannot keep, with paths, as tombstones", () => {
    const codec = createCodec({});
    const value = { fn: () => 1, deep: { list: [Symbol("s")] }, pending: Promise.resolve(1), weak: new WeakMap(), other: new (class Thing {})() };
    const { texts, problems } = codec.encodeAll([["obj", value]], "persist");
    assert.deepEqual(problems, [
      { path: "obj.fn", reason: "a function that is not a top-level declaration (closure over local state)" },
      { path: "obj.deep.list[0]", reason: "a Symbol" },
      { path: "obj.pending", reason: "a Promise (await it before storing its value)" },
      { path: "obj.weak", reason: "a WeakMap or WeakSet" },
      { path: "obj.other", reason: "an instance of Thing (only plain data, workspace classes and host objects can be kept)" },
    ]);
    const seen: Array<[string, string]> = [];
    const decoder = createCodec({ tombstone: (why, path) => (seen.push([path, why]), `<${path}>`) });
    const back = decoder.decodeAll(Object.entries(texts)).obj as Record<string, unknown>;
    assert.equal(back.fn, "<obj.fn>");
    assert.deepEqual((back.deep as { list: unknown[] }).list, ["<obj.deep.list[0]>"]);
    assert.deepEqual(seen.map(([path]) => path).sort(), ["obj.deep.list[0]", "obj.fn", "obj.other", "obj.pending", "obj.weak"]);
  });

  it("writes a tombstone the same way whether it is new or re-encoded", () => {
    const marker = { why: "a Symbol" };
    const first = createCodec({}).encodeAll([["s", [Symbol("x")]]], "persist").texts.s;
    const again = createCodec({ handleOf: (value) => (value === marker ? { why: marker.why } : undefined) })
      .encodeAll([["s", [marker]]], "persist").texts.s;
    assert.equal(again, first);
  });

  it("delegates host objects to handle hooks", () => {
    class Host {}
    const host = new Host();
    const stranger = new Host();
    const hooks: CodecHooks = {
      handleOf: (value, mode) => {
        if (!(value instanceof Host)) return undefined;
        if (value === stranger) return { why: "not restorable" };
        return mode === "persist" ? { k: "binding:host" } : { id: 1 };
      },
      fromHandle: (ref, path) => ({ ref, path }),
    };
    const codec = createCodec(hooks);
    const persisted = codec.encodeAll([["x", { host, stranger }]], "persist");
    assert.match(persisted.texts.x!, /\{"\$":"h","k":"binding:host","at":"x.host"\}/);
    assert.deepEqual(persisted.problems, [{ path: "x.stranger", reason: "not restorable" }]);
    const back = codec.decodeAll(Object.entries(persisted.texts)).x as { host: { ref: unknown; path: string } };
    assert.deepEqual(back.host, { ref: { $: "h", k: "binding:host", at: "x.host" }, path: "x.host" });
    assert.deepEqual(codec.decode(codec.encode(host)), { ref: { $: "h", id: 1 }, path: "$" });
  });

  it("re-declares definitions first, then restores instances of them", () => {
    const definitions = new WeakSet<Function>();
    const hooks: CodecHooks = {
      definitionOf: (fn) => (definitions.has(fn) ? fn.toString() : undefined),
      fromDefinition: (source) => {
        const value = (0, eval)(`(${source})`) as Function;
        definitions.add(value);
        return value;
      },
      classOf: (value) => {
        const cls = Object.getPrototypeOf(value)?.constructor;
        return definitions.has(cls) ? cls : undefined;
      },
    };
    class Base {
      x = 1;
      hello() {
        return "base";
      }
    }
    class Derived extends Base {
      override hello() {
        return "derived";
      }
    }
    definitions.add(Base).add(Derived);
    const codec = createCodec(hooks);
    const { texts, problems } = codec.encodeAll([["item", new Base()], ["Base", Base]], "persist");
    assert.deepEqual(problems, []);
    const assigned: string[] = [];
    const back = codec.decodeAll(Object.entries(texts), (name) => assigned.push(name)) as { item: Base; Base: typeof Base };
    assert.deepEqual(assigned, ["Base", "item"], "definitions are assigned in the first pass");
    assert.ok(back.item instanceof back.Base);
    assert.equal(back.item.hello(), "base");
    assert.notEqual(back.Base, Base, "re-declared from source");
    const transfer = createCodec({ ...hooks, foreignPrototype: (name) => ({ name }), opaque: (text) => `[${text}]` });
    const copy = transfer.decode(transfer.encode({ item: new Derived(), Derived, fn: function named() {}, anon: (() => () => 1)() }));
    assert.deepEqual(copy, { item: { x: 1 }, Derived: "[class Derived]", fn: "[Function named]", anon: "[Function]" });
    assert.deepEqual(Object.getPrototypeOf((copy as { item: object }).item), { name: "Derived" });
  });

  it("retries a definition that needs a later one, and tombstones one that never resolves", () => {
    const scope: Record<string, unknown> = {};
    const hooks: CodecHooks = {
      fromDefinition: (source) => new Function(...Object.keys(scope), `return (${source})`)(...Object.values(scope)),
      tombstone: (why, path) => ({ why, path }),
    };
    const texts: Array<[string, string]> = [
      ["B", '{"v":{"$":"ref","i":0},"o":[{"t":"fn","src":"class B extends A {}","name":"B"}]}'],
      ["A", '{"v":{"$":"ref","i":0},"o":[{"t":"fn","src":"class A { hi() { return 1 } }","name":"A"}]}'],
      ["C", '{"v":{"$":"ref","i":0},"o":[{"t":"fn","src":"class C extends Missing {}","name":"C"}]}'],
      ["c", '{"v":{"$":"ref","i":0},"o":[{"t":"obj","c":{"$":"xref","n":"C","i":0},"p":[["x",1]]}]}'],
    ];
    const back = createCodec(hooks).decodeAll(texts, (name, value) => (scope[name] = value)) as Record<string, any>;
    assert.equal(new back.B().hi(), 1);
    assert.match(back.C.why, /^its definition could not be re-declared \(ReferenceError: Missing is not defined\)$/);
    assert.deepEqual(back.c, { x: 1 });
  });

  it("refuses malformed texts", () => {
    const codec = createCodec({});
    assert.throws(() => codec.decode('{"v":{"$":"nope"}}'), /^TypeError: malformed value: unknown value tag "nope"$/);
    assert.throws(() => codec.decode('{"v":{"$":"ref","i":3}}'), /dangling reference/);
    assert.throws(() => codec.decode('{"v":{"$":"ref","i":0},"o":[{"t":"??"}]}'), /unknown node type/);
    assert.throws(() => codec.decode('{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":"ab"}]}'), /items must be a list/);
    assert.throws(() => codec.decode('{"v":{"$":"ref","i":0},"o":[{"t":"obj","p":[["a"]]}]}'), /\[key, value\] pairs/);
    assert.throws(() => codec.decode("null"), /expected a graph/);
  });

  it("resolves references only as indices into the tables it decodes, never by name on the realm", () => {
    // These names must not decode to the realm's Object.prototype, Object, Object.assign, Array.prototype.
    const codec = createCodec({});
    const attacks = [
      '{"v":{"$":"xref","n":"constructor","i":"prototype"}}',
      '{"v":{"$":"xref","n":"constructor","i":"constructor"}}',
      '{"v":{"$":"xref","n":"constructor","i":"assign"}}',
      '{"v":{"$":"xref","n":"__proto__","i":0}}',
      '{"v":{"$":"ref","i":"__proto__"}}',
      '{"v":{"$":"ref","i":0.5},"o":[{"t":"obj"}]}',
      '{"v":{"$":"ref","i":0},"o":[{"t":"obj","c":{"$":"xref","n":"constructor","i":"prototype"}}]}',
      '{"v":{"$":"ref","i":0},"o":[{"t":"obj","c":{"$":"ref","i":1}},{"t":"arr","v":[]}]}',
    ];
    for (const text of attacks) assert.throws(() => codec.decode(text), /^TypeError: malformed value: /, text);
    assert.throws(() => codec.decodeAll([["a", '{"v":1}'], ["a", '{"v":2}']]), /duplicate/);
  });

  it("keeps a variable named __proto__ as data, both ways", () => {
    const codec = createCodec({});
    const { texts } = codec.encodeAll([["__proto__", { a: 1 }], ["other", 2]], "persist");
    assert.deepEqual(Object.keys(texts), ["__proto__", "other"]);
    const back = codec.decodeAll(Object.entries(texts));
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(back, "__proto__")?.value, { a: 1 });
  });

  it("isolates stored variables that cannot be decoded", () => {
    const broken: string[] = [];
    const codec = createCodec({ tombstone: (why, path) => ({ why, path }) });
    const back = codec.decodeAll(
      [
        ["good", '{"v":{"$":"ref","i":0},"o":[{"t":"obj","p":[["n",1]]}]}'],
        ["bad", '{"v":{"$":"ref","i":0},"o":[{"t":"obj","p":[["n",{"$":"nope"}]]}]}'],
        ["sharing", '{"v":{"$":"ref","i":0},"o":[{"t":"arr","v":[{"$":"xref","n":"good","i":0},{"$":"xref","n":"bad","i":0}]}]}'],
        ["unparsable", "{"],
      ],
      undefined,
      { isolate: true, broken: (name) => broken.push(name) },
    ) as Record<string, any>;
    assert.deepEqual(back.good, { n: 1 });
    assert.match(back.bad.why, /^its stored value could not be read back \(TypeError: malformed value: unknown value tag "nope"\)$/);
    assert.equal(back.sharing[0], back.good);
    assert.match(back.sharing[1].why, /^it shared a value with bad/);
    assert.match(back.unparsable.why, /^its stored value could not be read back \(SyntaxError/);
    assert.deepEqual(broken.sort(), ["bad", "unparsable"]);
  });

  it("makes a variable it cannot read a tombstone of its own when persisting, and throws when transferring", () => {
    const codec = createCodec({});
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    let deep: unknown = 1;
    for (let i = 0; i < 1200; i++) deep = [deep];
    const shared = { s: 1 };
    const { texts, problems } = codec.encodeAll([["a", shared], ["revoked", { shared, proxy }], ["deep", deep], ["b", [shared]]], "persist");
    assert.deepEqual(problems.map((problem) => problem.path), ["revoked", "deep"]);
    assert.match(problems[0]!.reason, /^it could not be read \(TypeError: .*revoked/);
    assert.equal(problems[1]!.reason, "it is nested too deeply to be saved");
    const back = createCodec({ tombstone: (why) => `[${why}]` }).decodeAll(Object.entries(texts)) as Record<string, any>;
    assert.equal(back.b[0], back.a, "sharing with the variables that were kept survives");
    assert.match(back.revoked, /^\[it could not be read/);
    assert.throws(() => codec.encode({ proxy }), /revoked/);
  });

  it("is self-contained, so it can run inside the sandbox from its source", () => {
    const text = vm.runInNewContext(`(${codecSource()})({}).encode(new Map([[1, new Date(0)]]))`) as string;
    const back = createCodec({}).decode(text) as Map<number, Date>;
    assert.equal(back.get(1)?.getTime(), 0);
  });
});
