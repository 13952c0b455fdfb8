/**
 * @module
 * Workspace suite, persistence: every kind of value the codec keeps survives the store,
 * sharing survives inside and between variables, definitions are re-declared from source, and what cannot be
 * kept becomes a tombstone the model is told about — once.
 */
import assert from "node:assert/strict";
import type { SuiteContext } from "./harness.ts";

const CLOSURE = "a function that is not a top-level declaration (closure over local state)";

export function codecCases({ test, session }: SuiteContext): void {
  test("codec: primitives survive the store", async () => {
    const s = session();
    await s.ok(
      "const nz = -0, nan = NaN, inf = Infinity, ninf = -Infinity, int = 42, frac = -1.5, str = 'Zoë 🌍 \\n \"q\"', yes = true, no = false, nothing = null\nlet undef",
    );
    assert.equal(
      await s.output("print(Object.is(nz, -0), Number.isNaN(nan), inf, ninf, int, frac, JSON.stringify(str), yes, no, nothing, 'undef' in globalThis, undef)"),
      'true true Infinity -Infinity 42 -1.5 "Zoë 🌍 \\n \\"q\\"" true false null true undefined',
    );
  });

  test("codec: arrays keep the numbers JSON cannot, among any others", async () => {
    const s = session();
    await s.ok("const mixed = [0, -0, 1, NaN, -0, Infinity, 0, -Infinity, NaN, 'x', null, undefined, true, [-0, NaN], 2.5, -0]");
    const show = "const show = (v) => Object.is(v, -0) ? '-0' : Array.isArray(v) ? v.map(show).join('/') : String(v)\nprint(mixed.map(show).join(' '))";
    assert.equal(await s.output(show), "0 -0 1 NaN -0 Infinity 0 -Infinity NaN x null undefined true -0/NaN 2.5 -0");
  });

  test("codec: long lists of numbers, with a hole, -0 and NaN, alone and inside other values", async () => {
    // A hole stays a hole (a warm VM keeps it; a cold one must not restore it as undefined).
    const s = session();
    await s.ok(
      "const long = Array.from({ length: 40 }, (_, i) => i * 1.5 - 3)\nconst holed = [...long]; delete holed[7]\nconst signed = [...long]; signed[9] = -0; signed[10] = NaN\n" +
        "const nested = { a: long, b: [long, Array.from({ length: 20 }, (_, i) => i)], c: Array.from({ length: 20 }, () => long) }",
    );
    assert.equal(
      await s.output(
        "print(long.join(','), holed.length, 7 in holed, holed[7], holed[8], Object.is(signed[9], -0), Number.isNaN(signed[10]), signed[11])\n" +
          "print(nested.a === long, nested.b[0] === long, nested.c.every((item) => item === long), nested.b[1].join(','))",
      ),
      `${Array.from({ length: 40 }, (_, i) => i * 1.5 - 3).join(",")} 40 false undefined 9 true true 13.5\n` +
        `true true true ${Array.from({ length: 20 }, (_, i) => i).join(",")}`,
    );
  });

  test("codec: undefined inside arrays and objects, and holes kept apart from it", async () => {
    const s = session();
    await s.ok("const arr = [1, undefined, 3]; const obj = { u: undefined, n: null }; const holes = [1, , 3, , undefined]; holes.length = 7");
    assert.equal(await s.output("print(arr.length, 1 in arr, arr[1], 'u' in obj, obj.u, obj.n)"), "3 true undefined true undefined null");
    assert.equal(await s.output("print(holes.length, Object.keys(holes).join(), holes[1], 4 in holes)"), "7 0,2,4 undefined true");
  });

  test("codec: BigInt", async () => {
    const s = session();
    await s.ok("const big = 12345678901234567890123n, neg = -5n");
    assert.equal(await s.output("print(typeof big, big + 1n, neg * 2n)"), "bigint 12345678901234567890124n -10n");
  });

  test("codec: Date, including an invalid one", async () => {
    const s = session();
    await s.ok("const when = new Date(Date.UTC(2026, 2, 10, 15, 0, 0, 123)); const bad = new Date(NaN)");
    assert.equal(
      await s.output("print(when instanceof Date, when.toISOString(), bad instanceof Date, Number.isNaN(bad.getTime()))"),
      "true 2026-03-10T15:00:00.123Z true true",
    );
  });

  test("codec: RegExp keeps source, flags and lastIndex", async () => {
    const s = session();
    await s.ok("const re = /a(b+)/gi; re.exec('xxab'); const sticky = /\\d/y");
    assert.equal(await s.output("print(re instanceof RegExp, re.source, re.flags, re.lastIndex, sticky.flags, re.exec('ab__aBB').index)"), "true a(b+) gi 4 y 4");
  });

  test("codec: Map and Set, with object keys and nesting", async () => {
    const s = session();
    await s.ok("const key = { k: 1 }; const m = new Map([[1, 'one'], ['two', { n: 2 }], [key, new Set([1, 'x', key])]])");
    assert.equal(
      await s.output("print(m instanceof Map, m.size, m.get(1), m.get('two').n, m.get(key) instanceof Set, m.get(key).has(key), [...m.keys()].length)"),
      "true 3 one 2 true true 3",
    );
  });

  test("codec: nested structures", async () => {
    const s = session();
    await s.ok("const deep = { a: [{ b: new Map([['c', [new Set([new Date(0)])]]]) }] }");
    assert.equal(await s.output("print([...deep.a[0].b.get('c')[0]][0].getTime())"), "0");
  });

  test("codec: typed arrays of every kind, views and ArrayBuffer", async () => {
    const s = session();
    await s.ok(
      "const kinds = [new Int8Array([-1, 2]), new Uint8Array([255]), new Uint8ClampedArray([300]), new Int16Array([-2]), " +
        "new Uint16Array([65535]), new Int32Array([-3]), new Uint32Array([4294967295]), new Float32Array([1.5]), " +
        "new Float64Array([Math.PI]), new BigInt64Array([-5n]), new BigUint64Array([2n ** 64n - 1n])]\n" +
        "if (typeof Float16Array === 'function') kinds.push(new Float16Array([0.5]))\n" +
        "const buffer = new ArrayBuffer(8); new Uint8Array(buffer)[3] = 9\n" +
        "const view = new Uint16Array([1, 2, 3, 4]).subarray(1, 3)",
    );
    const expected = [
      "Int8Array:-1,2", "Uint8Array:255", "Uint8ClampedArray:255", "Int16Array:-2", "Uint16Array:65535", "Int32Array:-3",
      "Uint32Array:4294967295", "Float32Array:1.5", "Float64Array:3.141592653589793", "BigInt64Array:-5",
      "BigUint64Array:18446744073709551615",
    ];
    const output = await s.output(
      "print(kinds.map((k) => k.constructor.name + ':' + Array.from(k).join(',')).join(' '))\n" +
        "print(buffer instanceof ArrayBuffer, buffer.byteLength, new Uint8Array(buffer)[3])\n" +
        "print(view.constructor.name, view.length, view[0], view[1])",
    );
    const [first, second, third] = output.split("\n");
    assert.deepEqual(first!.split(" ").slice(0, expected.length), expected);
    if (first!.split(" ").length > expected.length) assert.equal(first!.split(" ")[expected.length], "Float16Array:0.5");
    assert.equal(second, "true 8 9");
    assert.equal(third, "Uint16Array 2 2 3");
  });

  test("codec: Error objects keep class, message and fields", async () => {
    const s = session();
    await s.ok(
      "const plain = new Error('p'); const typed = new TypeError('t'); typed.code = 7\n" +
        "class AppError extends Error { constructor(m) { super(m); this.name = 'AppError' } hint() { return 'h' } }\n" +
        "const app = new AppError('a')",
    );
    assert.equal(
      await s.output("print(plain instanceof Error, plain.message, typed instanceof TypeError, typed.name, typed.code, app instanceof AppError, app instanceof Error, app.name, app.message, app.hint())"),
      "true p true TypeError 7 true true AppError a h",
    );
  });

  test("codec: null-prototype objects", async () => {
    const s = session();
    await s.ok("const bare = Object.create(null); bare.a = 1; bare.toString = 'own'");
    assert.equal(await s.output("print(Object.getPrototypeOf(bare) === null, bare.a, bare.toString)"), "true 1 own");
  });

  test("codec: cycles", async () => {
    const s = session();
    await s.ok("const node = { name: 'n', list: [] }; node.self = node; node.list.push(node); const ring = new Map(); ring.set('me', ring)");
    assert.equal(await s.output("print(node.self === node, node.list[0] === node, ring.get('me') === ring)"), "true true true");
  });

  test("codec: shared references inside one variable", async () => {
    const s = session();
    await s.ok("const shared = { n: 1 }; const pair = [shared, shared, { again: shared }]; const held = 0");
    await s.ok("pair[0].n = 2");
    assert.equal(await s.output("print(pair[0] === pair[1], pair[2].again === pair[0], pair[1].n)"), "true true 2");
  });

  test("codec: shared references between two variables keep identity", async () => {
    const s = session();
    await s.ok("const a = { inner: { n: 1 } }; const b = a.inner; const c = [a, b]; const d = new Map([['b', b]])");
    assert.equal(await s.output("print(a.inner === b, c[0] === a, c[1] === b, d.get('b') === b)"), "true true true true");
    await s.ok("b.n = 5");
    assert.equal(await s.output("print(a.inner.n, c[1].n, d.get('b').n)"), "5 5 5");
    await s.ok("delete globalThis.a");
    assert.equal(await s.output("print(typeof a, c[1] === b, d.get('b') === b, c[0].inner === b)"), "undefined true true true");
  });

  test("codec: functions are re-declared from source and callable", async () => {
    const s = session();
    await s.ok(
      "function double(x) { return x * 2 }\nconst add = (a, b) => a + b\nasync function later(x) { return double(x) }\n" +
        "function* count() { yield 1; yield 2 }\nconst expr = function named() { return 'e' }\nconst alias = double",
    );
    assert.equal(
      await s.output("print(double(2), add(1, 2), await later(4), [...count()], expr(), alias(5), alias === double)\nprint(double.name, add.name, later.name, count.name)"),
      "4 3 8 [1,2] e 10 true\ndouble add later count",
    );
  });

  test("codec: properties of functions and static fields are kept", async () => {
    const s = session();
    await s.ok("function counted() { return ++counted.calls }\ncounted.calls = 0\nclass Registry { static items = []; static add(x) { Registry.items.push(x) } }");
    await s.ok("counted(); counted(); Registry.add('a')");
    assert.equal(await s.output("print(counted.calls, Registry.items)"), '2 ["a"]');
  });

  test("codec: classes and instances of workspace classes", async () => {
    const s = session();
    await s.ok(
      "class Point { constructor(x, y) { this.x = x; this.y = y } get sum() { return this.x + this.y } static origin() { return new Point(0, 0) } }\n" +
        "class Point3 extends Point { constructor(x, y, z) { super(x, y); this.z = z } get sum() { return super.sum + this.z } }\n" +
        "const p = new Point(1, 2); const q = new Point3(1, 2, 3); const list = [p, q]",
    );
    assert.equal(
      await s.output("print(p.sum, q.sum, p instanceof Point, q instanceof Point3, q instanceof Point, p instanceof Point3, list[0] === p, Point.origin().sum)"),
      "3 6 true true true false true 0",
    );
    assert.equal(await s.output("p"), "Point {x:1,y:2}");
    await s.ok("const r = new Point3(0, 0, 9)");
    assert.equal(await s.output("print(r.sum, r instanceof Point)"), "9 true");
  });

  test("codec: a subclass may come before its base in definition order", async () => {
    const s = session();
    await s.ok("let Sub = 1; let item = 0");
    await s.ok("class Base { hi() { return 'base' } }\nclass Sub extends Base {}\nitem = new Sub()");
    assert.equal(await s.output("print(new Sub().hi(), item.hi(), item instanceof Base)"), "base base true");
  });

  test("codec: a definition that cannot be re-declared becomes a tombstone", async () => {
    const s = session();
    await s.ok("class Base {}\nclass Sub extends Base {}\nconst other = 1");
    await s.ok("delete globalThis.Base");
    const why = "its definition could not be re-declared (ReferenceError: Base is not defined)";
    const result = await s.run("print(other)");
    assert.deepEqual(result.texts("out"), ["1"], "the rest of the workspace restores");
    assert.deepEqual(result.notices, [`Sub was not persisted: ${why}`]);
    assert.equal((await s.run("new Sub()")).error, `ReferenceError: Sub was not persisted: ${why}`);
  });

  test("codec: instances of classes with #private members become tombstones", async () => {
    const s = session();
    const result = await s.run(
      "class Counter { #n = 1; get n() { return this.#n } }\nclass Sub extends Counter {}\nconst c = new Counter(); const holder = { sub: new Sub() }\nc.n",
    );
    assert.deepEqual(result.texts("echo"), ["1"]);
    assert.deepEqual(result.notices, [
      "c was not persisted: an instance of Counter, whose #private members cannot be kept",
      "holder.sub was not persisted: an instance of Sub, whose #private members cannot be kept",
    ]);
    assert.equal(await s.output("print(new Counter().n, new Sub().n)"), "1 1", "the classes themselves are kept");
    assert.deepEqual((await s.run("const again = new Counter()")).notices, [
      "again was not persisted: an instance of Counter, whose #private members cannot be kept",
    ]);
  });

  test("codec: a closure becomes a tombstone with a notice", async () => {
    const s = session();
    const result = await s.run("const make = () => { let n = 0; return () => ++n }\nconst g = make()\ng()");
    assert.deepEqual(result.texts("echo"), ["1"]);
    assert.deepEqual(result.notices, [`g was not persisted: ${CLOSURE}`]);
    const access = await s.run("g()");
    assert.equal(access.error, `ReferenceError: g was not persisted: ${CLOSURE}`);
    assert.equal(await s.output("make()()"), "1", "the declared function itself is kept");
  });

  test("codec: a function assigned by var inside a block is not kept", async () => {
    const s = session();
    const result = await s.run("if (true) { const local = 1; var inner = () => local }\ninner()");
    assert.deepEqual(result.texts("echo"), ["1"]);
    assert.deepEqual(result.notices, [`inner was not persisted: ${CLOSURE}`]);
  });

  test("codec: a nested tombstone names its path", async () => {
    const s = session();
    const result = await s.run("const obj = { keep: 1, fn: [1].map((x) => () => x)[0], deep: { list: [Symbol('s')] } }");
    assert.deepEqual(result.notices, [`obj.fn was not persisted: ${CLOSURE}`, "obj.deep.list[0] was not persisted: a Symbol"]);
    assert.equal(await s.output("obj.keep"), "1");
    assert.equal((await s.run("obj.fn()")).error, `ReferenceError: obj.fn was not persisted: ${CLOSURE}`);
    assert.equal((await s.run("obj.deep.list[0].description")).error, "ReferenceError: obj.deep.list[0] was not persisted: a Symbol");
  });

  test("codec: Promise, WeakMap and Symbol become tombstones", async () => {
    const s = session();
    const result = await s.run("const pending = Promise.resolve(1); const weak = new WeakMap(); const sym = Symbol('s')");
    assert.deepEqual(result.notices, [
      "pending was not persisted: a Promise (await it before storing its value)",
      "weak was not persisted: a WeakMap or WeakSet",
      "sym was not persisted: a Symbol",
    ]);
    assert.equal((await s.run("pending.then")).error, undefined, "a tombstone is not a thenable");
    assert.equal((await s.run("weak.get({})")).error, "ReferenceError: weak was not persisted: a WeakMap or WeakSet");
    assert.equal((await s.run("sym.toString()")).error, "ReferenceError: sym was not persisted: a Symbol");
  });

  test("codec: a tombstone is reported once and not rewritten", async () => {
    const s = session();
    await s.run("const g = [1].map((x) => () => x)[0]; const holder = { fn: g }");
    const stored = s.blob("g");
    const later = await s.ok("const other = 1\nprint(typeof holder)");
    assert.deepEqual(later.notices, []);
    assert.deepEqual(later.put.map((row) => row.name), ["other"]);
    assert.equal(s.blob("g"), stored);
    assert.equal(await s.output("g"), `[not persisted: ${CLOSURE}]`);
  });

  test("codec: only changed variables are stored", async () => {
    const s = session();
    const first = await s.ok("const a = { n: 1 }; const b = [1, 2]; function f() { return 1 }");
    assert.deepEqual(first.put.map((row) => row.name).sort(), ["a", "b", "f"]);
    const unchanged = await s.ok("print(a.n + b[0] + f())");
    assert.deepEqual(unchanged.put, []);
    assert.deepEqual(unchanged.deleted, []);
    const changed = await s.ok("b.push(3)");
    assert.deepEqual(changed.put.map((row) => row.name), ["b"]);
    const positions = new Map(s.rows.map((row) => [row.name, row.position]));
    assert.equal(new Set(positions.values()).size, 3, "distinct positions");
    const redeclared = await s.ok("const a = 'new'");
    assert.deepEqual(redeclared.put.map((row) => [row.name, row.position]), [["a", positions.get("a")]], "a keeps its position");
  });

  test("codec: deleted variables are reported", async () => {
    const s = session();
    await s.ok("const x = 1; var y = 2; let z = 3");
    const result = await s.ok("delete globalThis.x; delete globalThis.y");
    assert.deepEqual(result.deleted.sort(), ["x", "y"]);
    assert.deepEqual(result.put, []);
    assert.deepEqual(s.rows.map((row) => row.name), ["z"]);
    assert.equal(await s.output("print(typeof x, typeof y, z)"), "undefined undefined 3");
  });
}
