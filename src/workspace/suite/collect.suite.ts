/**
 * @module
 * Workspace suite, the incremental collect (docs/decisions/2026-12-04-the-collect-is-incremental.md): a cell's changes are
 * stored however the cell reached the variables — by name, by a name computed at run time, through a
 * workspace function, a shared value or a deleted owner — while a cell that reached none stores nothing,
 * and the runtime's own functions hold no state a collect could miss. Warm and cold must agree, as
 * everywhere in the suite; `incremental-collect.test.ts` compares the incremental collect with a full one.
 */
import assert from "node:assert/strict";
import type { SuiteContext } from "./harness.ts";

class Shelf {
  items: string[] = [];
  add(item: string): number {
    return this.items.push(item);
  }
}

export function collectCases({ test, session }: SuiteContext): void {
  test("collect: a cell that reaches no variable encodes none; one that changes a variable encodes it alone", async () => {
    const s = session();
    await s.ok("const count = 1");
    await s.ok("const box = { n: 1 }");
    await s.ok("const other = [1, 2]");
    const idle = await s.ok("print('nothing')");
    assert.equal(idle.encodedVariables, 0);
    assert.deepEqual(idle.put, []);
    const changed = await s.ok("box.n = 2");
    assert.equal(changed.encodedVariables, 1);
    assert.deepEqual(changed.put.map((row) => row.name), ["box"]);
  });

  test("collect: changes through names computed at run time are stored", async () => {
    const s = session();
    await s.ok("const target = { n: 0 }");
    await s.ok("const other = { n: 0 }");
    await s.ok("globalThis['tar' + 'get'].n = 1");
    assert.equal(s.blob("target"), '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":{"n":1}}]}');
    await s.ok("eval('target').n = 2; (0, eval)('other.n = 2')");
    await s.ok("[].map.constructor('target.n++')(); (function () { this.other.n++ })()");
    assert.equal(await s.output("print(target.n, other.n)"), "3 3");
    assert.match(s.blob("target") ?? "", /\["n",3\]|"n":3\b/);
    assert.match(s.blob("other") ?? "", /\["n",3\]|"n":3\b/);
  });

  test("collect: workspace functions and methods that change globals, and values two variables share", async () => {
    const s = session();
    await s.ok("const tally = { n: 0 }");
    await s.ok("function bump() { tally.n++ }\nclass Clerk { file(x) { ledger.push(x) } }\nconst ledger = []\nconst clerk = new Clerk()");
    await s.ok("const owner = { inner: { list: [] } }");
    await s.ok("const part = owner.inner");
    await s.ok("bump(); clerk.file('a'); part.list.push(1)");
    assert.match(s.blob("tally") ?? "", /\["n",1\]|"n":1\b/);
    assert.match(s.blob("ledger") ?? "", /:\["a"\]/);
    assert.match(s.blob("owner") ?? "", /:\[1\]/);
    await s.ok("delete globalThis.owner");
    assert.equal(s.blob("owner"), undefined);
    assert.equal(await s.output("print(JSON.stringify(part))"), '{"list":[1]}');
  });

  test("collect: the runtime's own functions keep no properties (a warm VM would keep what the store never saw)", async () => {
    const shelf = new Shelf();
    const s = session({ globals: { shelf } });
    await s.ok("const list = [1]");
    await s.ok("print.kept = list; exit.kept = list; console.log.kept = list; __statek.echo.kept = list; shelf.add.kept = list");
    assert.equal(
      await s.output("print([print, exit, console.log, __statek.echo, shelf.add].map((fn) => typeof fn.kept + ' ' + Object.isFrozen(fn)).join())"),
      "undefined true,undefined true,undefined true,undefined true,undefined true",
    );
  });
}
