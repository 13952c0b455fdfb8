/**
 * Lazy restore: a VM restores a variable of plain data that shares nothing with the others by arming its
 * binding with its text, decoded on first read. Every case runs cold (each cell in a VM restored from the
 * stored rows) in a workspace that collects incrementally — which leaves the untouched variables undecoded —
 * and in one that encodes every variable (and so decodes every one); both must print the same and store the
 * same rows after every cell (`suite/collect-pair.ts`).
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createQuickJsExecutor } from "./quickjs/quickjs-executor.ts";
import { CollectPair } from "./suite/collect-pair.ts";

const pairs: CollectPair[] = [];
after(() => {
  for (const pair of pairs) pair.close();
});

function cold(): CollectPair {
  const made = new CollectPair({ executor: createQuickJsExecutor, mode: "cold" });
  pairs.push(made);
  return made;
}

/** Variables of every plain kind, each made by a cell of its own (so none share a group). */
const PLAIN = [
  "var rows = [{ id: 1, name: 'a', done: false, tags: ['x'] }, { id: 2, name: 'b', done: true, tags: [] }]",
  "var counts = new Map([['a', 1], ['b', 2]])",
  "var seen = new Set([1, 2, 3])",
  "var when = new Date(0)",
  "var pattern = /ab+c/gi",
  "var bytes = new Uint8Array([1, 2, 3])",
  "var big = 12345678901234567890n",
  "var nothing = undefined",
  "var negZero = -0",
  "var text = 'line\\nwith \"quotes\" and \\\\u0041 and {\"$\":\"xref\"}'",
  "var nested = { a: { b: { c: [1, [2, [3]]] } }, self: null }; nested.self = nested",
  "var holes = [1, , 3]",
  "var bare = Object.assign(Object.create(null), { k: 1 })",
];

async function plain(p: CollectPair): Promise<void> {
  for (const cell of PLAIN) await p.run(cell);
}

describe("lazy restore", () => {
  it("gives every plain value back as it was stored, when read in a later VM", async () => {
    const p = cold();
    await plain(p);
    const lines = await p.run(
      "print(JSON.stringify(rows), [...counts].join(';'), [...seen].join(','), when.getTime(), pattern.source + pattern.flags + pattern.lastIndex, " +
        "bytes.join(','), big, typeof nothing, Object.is(negZero, -0), text, nested.self === nested, nested.a.b.c[1][1][0], 1 in holes, holes.length, " +
        "Object.getPrototypeOf(bare) === null, bare.k)",
    );
    assert.deepEqual(lines, [
      '[out] [{"id":1,"name":"a","done":false,"tags":["x"]},{"id":2,"name":"b","done":true,"tags":[]}] a,1;b,2 1,2,3 0 ab+cgi0 1,2,3 12345678901234567890n undefined true ' +
        'line\nwith "quotes" and \\u0041 and {"$":"xref"} true 3 false 3 true 1',
    ]);
  });

  it("encodes again only what a cell touched, however it reached it", async () => {
    const p = cold();
    await plain(p);
    const before = p.incremental.encoded;
    await p.run("print(1)");
    assert.equal(p.incremental.encoded - before, 0, "a cell that touches nothing encodes nothing");
    await p.run("rows[0].done = true");
    assert.match(p.blob("rows") ?? "", /"done":true,"tags":\["x"\]/);
    await p.run("for (const value of Object.values(globalThis)) if (value instanceof Set) value.add(4)");
    assert.match(p.blob("seen") ?? "", /4\]/);
    await p.run("Reflect.get(globalThis, 'counts').set('c', 3)");
    assert.match(p.blob("counts") ?? "", /"c"/);
    await p.run("Object.getOwnPropertyDescriptor(globalThis, 'bytes').get.call(null)[0] = 9");
    assert.match(p.blob("bytes") ?? "", /09/);
  });

  it("keeps assignments, deletions and redefinitions made without reading the stored value", async () => {
    const p = cold();
    await plain(p);
    await p.run("when = 'replaced'; delete globalThis.seen; Object.defineProperty(globalThis, 'pattern', { value: 42, writable: true, enumerable: true, configurable: true })");
    assert.equal(p.blob("when"), '{"v":"replaced"}');
    assert.equal(p.blob("seen"), undefined);
    assert.equal(p.blob("pattern"), '{"v":42}');
    assert.deepEqual(await p.run("print(when, typeof seen, pattern, rows.length)"), ["[out] replaced undefined 42 2"]);
  });

  it("restores plain variables in place among definitions, class instances and values shared between variables", async () => {
    const p = cold();
    await p.run("var before = { n: 1 }");
    await p.run("class Point { constructor(x) { this.x = x } twice() { return this.x * 2 } }");
    await p.run("var middle = [1, 2]");
    await p.run("var point = new Point(4)");
    await p.run("var shared = { tag: 'shared' }; var holder = { shared }");
    await p.run("var after = 'last'");
    // `shared` is referred into by `holder`: both restored eagerly, still one object.
    const lines = await p.run("print(Object.keys(globalThis).filter((k) => ['before', 'Point', 'middle', 'point', 'shared', 'holder', 'after'].includes(k)).join(','), " +
      "point.twice(), holder.shared === shared, before.n, middle.length, after)");
    assert.deepEqual(lines, ["[out] before,Point,middle,point,shared,holder,after 8 true 1 2 last"]);
    await p.run("shared.tag = 'changed'");
    assert.deepEqual(await p.run("print(holder.shared.tag)"), ["[out] changed"]);
  });

  it("keeps a plain variable's objects one with the variables and instances that share them, as its sharing changes", async () => {
    const p = cold();
    await p.run("var owner = { inner: { n: 1 }, list: [1] }");
    assert.match(p.blob("owner") ?? "", /"t":"data"/, "alone, plain data is one data node");
    // Another variable shares an object inside it: it is written node by node, the other refers into it.
    await p.run("var part = owner.inner");
    assert.doesNotMatch(p.blob("owner") ?? "", /"t":"data"/);
    assert.match(p.blob("part") ?? "", /"xref","n":"owner","i":[1-9]/);
    await p.run("part.n = 2");
    assert.deepEqual(await p.run("print(owner.inner === part, owner.inner.n)"), ["[out] true 2"]);
    // Sharing only its root (a variable, a class instance) keeps it one data node: the others refer to node 0.
    await p.run("class Box { constructor(held) { this.held = held } }\nvar box = new Box(owner); var alias = owner; var keep = { owner }");
    await p.run("delete globalThis.part");
    assert.match(p.blob("owner") ?? "", /"t":"data"/, "nothing shares inside it any more");
    await p.run("owner.list.push(2)");
    assert.deepEqual(await p.run("print(box.held === owner, alias === owner, keep.owner === owner, owner.list.join())"), ["[out] true true true 1,2"]);
    // Shared inside again, by a class instance this time.
    await p.run("var box2 = new Box(owner.list)");
    assert.doesNotMatch(p.blob("owner") ?? "", /"t":"data"/);
    await p.run("box2.held.push(3)");
    assert.deepEqual(await p.run("print(owner.list === box2.held, owner.list.join(), alias === owner)"), ["[out] true 1,2,3 true"]);
  });
});
