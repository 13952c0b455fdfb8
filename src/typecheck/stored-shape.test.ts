import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { Agent, Statek, scriptedModel } from "../index.ts";
import type { VariableRow } from "../store/store.ts";
import { storedType } from "./stored-shape.ts";
import { ANY, named, unionOf, writeShape, type TypeShape } from "./type-shape.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

class Calendar {
  owner = "ada";
}

/** The rows a real job stored after running `code` (texts written by the workspace's own codec, in the guest). */
async function storedRows(code: string): Promise<Map<string, VariableRow>> {
  const calendar = new Calendar();
  const agent = new Agent({ role: "shapes", model: scriptedModel([ts(code), ts("exit()")]) });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], bindings: { calendar } });
  try {
    const { id } = await statek.submitJob(agent, { vars: { calendar } });
    const view = await statek.runJob(id);
    assert.equal(view.status, "DONE", JSON.stringify(view.console));
    return new Map((await statek.store.getVariables(id)).map((row) => [row.name, row]));
  } finally {
    await statek.close();
  }
}

const names = { isClass: (name: string) => name === "Tracker", isDeclared: () => true };
const handles = (key: string): TypeShape => (key === "binding:calendar" ? named("Calendar") : ANY);

describe("the type of a stored variable", () => {
  let rows: Map<string, VariableRow>;
  before(async () => {
    rows = await storedRows(
      [
        "const n = 1.5; const s = 'x'; const flag = true; const big = 10n; const nothing = null; const notYet = undefined",
        "const when = new Date(0); const pattern = /a/g; const bytes = new Uint8Array(2)",
        "const point = { x: 1, y: 2, label: 'p' }",
        "const rows = [{ id: 1, name: 'a' }, { id: 2, name: 'b', extra: true }]",
        "const mixed = [1, 'two', 3]; const empty = []; const emptyObject = {}",
        "const byId = new Map([['a', 1]]); const tags = new Set(['x'])",
        "const nested = { inner: { deeper: [new Date(1)] } }",
        "const sameAsPoint = point",
        "class Tracker { count = 0 }",
        "const tracker = new Tracker()",
        "function twice(n: number) { return n * 2 }",
        "const failure = Object.assign(new RangeError('bad'), { code: 7 })",
        "const cycle: any = { name: 'c' }; cycle.self = cycle",
        "const cal = calendar",
      ].join("\n"),
    );
  });

  const typeOf = (name: string) => {
    const row = rows.get(name);
    assert.ok(row, `variable ${name} was stored`);
    const type = storedType(row.blob, handles);
    return type.holds === "value" ? writeShape(type.shape, names) : type.holds;
  };

  it("widens primitives to their types, and says any for null and undefined", () => {
    assert.deepEqual(["n", "s", "flag", "big", "nothing", "notYet"].map(typeOf), ["number", "string", "boolean", "bigint", "any", "any"]);
  });

  it("names built-in objects", () => {
    assert.deepEqual(["when", "pattern", "bytes"].map(typeOf), ["Date", "RegExp", "Uint8Array"]);
  });

  it("types plain objects by their fields, arrays by their items (objects merged, missing fields optional)", () => {
    assert.equal(typeOf("point"), "{ x: number; y: number; label: string; }");
    assert.equal(typeOf("rows"), "{ id: number; name: string; extra?: boolean; }[]");
    assert.equal(typeOf("mixed"), "(number | string)[]");
    assert.equal(typeOf("nested"), "{ inner: { deeper: Date[]; }; }");
  });

  it("leaves what an empty collection will hold open", () => {
    assert.equal(typeOf("empty"), "any[]");
    assert.equal(typeOf("emptyObject"), "Record<string, any>");
  });

  it("types maps and sets by their entries", () => {
    assert.deepEqual([typeOf("byId"), typeOf("tags")], ["Map<string, number>", "Set<string>"]);
  });

  it("refers to a value shared with another variable by that variable", () => {
    assert.equal(typeOf("sameAsPoint"), "typeof point");
  });

  it("names an instance of a workspace class by its class, and keeps functions and classes for their cells' declarations", () => {
    assert.equal(typeOf("tracker"), "Tracker");
    assert.equal(typeOf("Tracker"), "definition");
    assert.equal(typeOf("twice"), "definition");
  });

  it("types an error by its kind and own fields", () => {
    assert.equal(typeOf("failure"), "RangeError & { code: number; }");
  });

  it("says any where a value refers to itself", () => {
    assert.equal(typeOf("cycle"), "{ name: string; self: any; }");
  });

  it("types a handle by what the job knows of its host object", () => {
    assert.equal(typeOf("cal"), "Calendar");
    assert.equal(typeOf("calendar"), "Calendar");
  });

  it("types plain data written whole (a data node) as it types the same value node by node, and a malformed one as any", () => {
    const value = { id: 1, name: "a", tags: ["x"], deep: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }, none: null, empty: [] };
    const asData = JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "data", v: value }] });
    const graph = JSON.stringify({
      v: { $: "ref", i: 0 },
      o: [
        { t: "obj", p: [["id", 1], ["name", "a"], ["tags", { $: "ref", i: 1 }], ["deep", { $: "ref", i: 2 }], ["none", null], ["empty", { $: "ref", i: 9 }]] },
        { t: "arr", v: ["x"] },
        { t: "obj", p: [["a", { $: "ref", i: 3 }]] },
        { t: "obj", p: [["b", { $: "ref", i: 4 }]] },
        { t: "obj", p: [["c", { $: "ref", i: 5 }]] },
        { t: "obj", p: [["d", { $: "ref", i: 6 }]] },
        { t: "obj", p: [["e", { $: "ref", i: 7 }]] },
        { t: "obj", p: [["f", { $: "ref", i: 8 }]] },
        { t: "obj", p: [["g", 1]] },
        { t: "arr", v: [] },
      ],
    });
    assert.deepEqual(storedType(asData, handles), storedType(graph, handles));
    assert.equal(writeShape(storedType(asData, handles).shape, names).slice(0, 40), "{ id: number; name: string; tags: string");
    // Tags inside data are fields, and what is not data is any.
    assert.equal(writeShape(storedType(JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "data", v: { h: { $: "h", k: "binding:calendar" } } }] }), handles).shape, names), '{ h: { $: string; k: string; }; }');
    for (const v of [1, null, undefined]) assert.equal(storedType(JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "data", v }] }), handles).shape, ANY);
  });

  it("calls a tombstone or an unreadable text lost", () => {
    assert.equal(storedType(JSON.stringify({ v: { $: "tomb", why: "closure", at: "f" } }), handles).holds, "lost");
    assert.equal(storedType("not json", handles).holds, "lost");
    assert.equal(storedType(JSON.stringify({ v: { $: "ref", i: 0 }, o: [{ t: "mystery" }] }), handles).shape, ANY);
  });
});

describe("unions of shapes", () => {
  it("collapses equal members, and becomes any past a few", () => {
    assert.deepEqual(unionOf([named("number"), named("number")]), named("number"));
    assert.equal(unionOf(["a", "b", "c", "d", "e", "f", "g"].map(named)), ANY);
    assert.equal(unionOf([named("number"), ANY]), ANY);
  });

  it("merges dictionaries with objects into one dictionary", () => {
    const merged = unionOf([{ kind: "record", value: named("number") }, { kind: "object", fields: [{ key: "a", shape: named("string") }] }]);
    assert.equal(writeShape(merged, names), "Record<string, number | string>");
  });
});

