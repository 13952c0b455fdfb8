/**
 * The incremental collect, case by case: every way a cell can reach a variable without naming it, every join
 * the codec does not keep, every fallback. Each case runs its cells in a workspace that collects
 * incrementally and in one that encodes every variable (`suite/collect-pair.ts`), which must store the same
 * rows after every cell; the cases also check what was stored and how many variables were encoded.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createQuickJsExecutor } from "./quickjs/quickjs-executor.ts";
import { CollectPair, type CollectPairOptions } from "./suite/collect-pair.ts";

const pairs: CollectPair[] = [];
after(() => {
  for (const pair of pairs) pair.close();
});

function pair(options: Partial<CollectPairOptions> = {}): CollectPair {
  const made = new CollectPair({ executor: createQuickJsExecutor, mode: "warm", ...options });
  pairs.push(made);
  return made;
}

/** Runs `code` and returns how many variables the incremental side encoded for it. */
async function encodedBy(p: CollectPair, code: string): Promise<number> {
  const before = p.incremental.encoded;
  await p.run(code);
  return p.incremental.encoded - before;
}

/**
 * Ten variables `v0`…`v9` (`{ n, list }`), each made by a cell of its own: variables one cell reaches
 * together share a group (see `guest-collect-scope.ts`), and these cases start from separate ones.
 */
async function ten(p: CollectPair): Promise<void> {
  for (let i = 0; i < 10; i++) await p.run(`var v${i} = { n: ${i}, list: [${i}] }`);
}

describe("incremental collect", () => {
  it("encodes only the variables a cell used", async () => {
    const p = pair();
    await ten(p);
    assert.equal(await encodedBy(p, "1"), 0);
    assert.equal(await encodedBy(p, "v3.n = 30"), 1);
    assert.equal(p.blob("v3"), '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":{"n":30,"list":[3]}}]}');
    assert.equal(await encodedBy(p, "print(v4.n)"), 1);
  });

  for (const [how, code] of [
    ["globalThis[name]", "globalThis['v' + 3].n = 99"],
    ["a direct eval", "eval('v3').n = 99"],
    ["an indirect eval", "(0, eval)('v3.n = 99')"],
    ["a Function constructor reached without its name", "[].map.constructor('v3.n = 99')()"],
    ["an async function's constructor", "await Object.getPrototypeOf(async () => {}).constructor('v3.n = 99')()"],
    ["a with block (in eval: the type stripper refuses it in a cell)", "(0, eval)('with (globalThis) { v3.n = 99 }')"],
    ["a sloppy function's this", "(function () { this.v3.n = 99 })()"],
    ["Object.values(globalThis)", "for (const value of Object.values(globalThis)) if (value && value.n === 3) value.n = 99"],
    ["Reflect.get", "Reflect.get(globalThis, 'v3').n = 99"],
    ["the accessor's own getter", "Object.getOwnPropertyDescriptor(globalThis, 'v3').get.call(null).n = 99"],
    ["a timer's callback", "setTimeout(() => { v3.n = 99 }, 1)"],
  ] as const) {
    it(`sees a variable reached through ${how}`, async () => {
      const p = pair();
      await ten(p);
      await p.run(code);
      assert.match(p.blob("v3") ?? "", /\["n",99\]|"n":99\b/);
    });
  }

  it("sees variables changed by workspace functions and class methods that name them", async () => {
    const p = pair();
    await ten(p);
    await p.run("function bump() { v3.n++ }\nclass Keeper { keep(x) { v4.list.push(x) } }\nconst keeper = new Keeper()");
    await p.run("bump(); keeper.keep(7)");
    assert.match(p.blob("v3") ?? "", /\["n",4\]|"n":4\b/);
    assert.match(p.blob("v4") ?? "", /:\[4,7\]/);
  });

  it("sees changes through values two variables share, and a deleted owner", async () => {
    const p = pair();
    await ten(p);
    await p.run("const alias = v1");
    await p.run("const inner = v2.list");
    await p.run("const both = [v5, v6.list]");
    assert.equal(await encodedBy(p, "alias.n = 10"), 2, "alias and v1 (the cell that made alias reached both)");
    assert.match(p.blob("v1") ?? "", /\["n",10\]|"n":10\b/);
    await p.run("inner.push(20)");
    assert.match(p.blob("v2") ?? "", /:\[2,20\]/);
    await p.run("both[1].push(30)");
    await p.run("delete globalThis.v2");
    assert.equal(p.blob("v2"), undefined);
    assert.match(p.blob("inner") ?? "", /:\[2,20\]/, "inner owns the list now");
    await p.run("delete globalThis.alias; v1 = 5");
  });

  it("sees variables deleted, redefined or created without using their binding", async () => {
    const p = pair();
    await ten(p);
    await p.run("delete globalThis.v1; void Object.defineProperty(globalThis, 'v2', { value: 'two', writable: true, enumerable: true, configurable: true })");
    await p.run("globalThis['fr' + 'esh'] = [1]; Object.assign(globalThis, { v4: 'four' })");
    assert.equal(p.blob("v1"), undefined);
    assert.equal(p.blob("v2"), '{"v":"two"}');
    assert.equal(p.blob("fresh"), '{"v":{"$":"ref","i":0},"o":[{"t":"data","v":[1]}]}');
    assert.equal(p.blob("v4"), '{"v":"four"}');
  });

  it("keeps variables one cell reached together in a group: joins the codec does not keep are seen", async () => {
    const p = pair();
    await ten(p);
    await p.run("Object.defineProperty(v1, 'secret', { value: v2.list, enumerable: false })");
    assert.equal(await encodedBy(p, "v1.secret.push(5)"), 2);
    assert.match(p.blob("v2") ?? "", /:\[2,5\]/);
    await p.run("const Helper = class { grab() { return this.constructor.kept } }\nv7.helper = new Helper()");
    await p.run("Object.getPrototypeOf(v7.helper).constructor.prototype.kept = v8; Helper.prototype.reach = () => v9.list");
    await p.run("new Helper().kept.n = 80; new Helper().reach().push(90)");
    assert.match(p.blob("v8") ?? "", /\["n",80\]|"n":80\b/);
    assert.match(p.blob("v9") ?? "", /:\[9,90\]/);
  });

  it("sees a closure an earlier cell left behind", async () => {
    const p = pair();
    await ten(p);
    // A closure is a tombstone in the store; the warm VM keeps it until it restores again.
    await p.run("v0.later = (() => { const held = v6.list; return () => held.push(60) })()");
    await p.run("try { v0.later() } catch (error) { print(error.name) }");
    await p.run("v0.later = () => v6.list.push(61)");
    await p.run("try { v0.later() } catch (error) { print(error.name) }");
  });

  it("keeps variables readable after the global object is sealed or frozen, and writable only while sealed", async () => {
    const p = pair();
    await ten(p);
    await p.run("Object.seal(globalThis)");
    assert.deepEqual(await p.run("v1.n = 11; v2 = 'two'; print(v1.n, v2, v3.n)"), ["[out] 11 two 3"]);
    assert.match(p.blob("v1") ?? "", /\["n",11\]|"n":11\b/);
    assert.equal(p.blob("v2"), '{"v":"two"}');
    await p.run("Object.freeze(globalThis)");
    assert.deepEqual(await p.run("v4.n = 44; v5 = 'five'; print(v4.n, typeof v5)"), ["[out] 44 object"]);
    assert.match(p.blob("v4") ?? "", /\["n",44\]|"n":44\b/);
  });

  it("arms the agent's plain-data context like a variable: what it holds on to is seen", async () => {
    const p = pair({ globals: () => ({ config: { mode: "a" } }) });
    await ten(p);
    await p.run("config.keep = v5");
    await p.run("config.keep.n = 55");
    assert.match(p.blob("v5") ?? "", /\["n",55\]|"n":55\b/);
    assert.equal(p.blob("config"), undefined, "the context is not a variable");
  });

  it("collects fully, for good, once the global object holds what no binding guards", async () => {
    for (const stash of ["globalThis[Symbol.for('stash')] = v2", "Object.setPrototypeOf(globalThis, { __proto__: Object.getPrototypeOf(globalThis), stash: v2 })"]) {
      const p = pair();
      await ten(p);
      assert.equal(await encodedBy(p, stash), 10);
      assert.equal(await encodedBy(p, "1"), 10);
      await p.run("globalThis[Symbol.for('stash')] ? globalThis[Symbol.for('stash')].n = 22 : stash.n = 22");
      assert.match(p.blob("v2") ?? "", /\["n",22\]|"n":22\b/);
    }
  });

  it("encodes every cell a variable no accessor can guard (a built-in's binding), and all of them after agent code ran while encoding", async () => {
    const p = pair();
    await ten(p);
    await p.run("const URL = { n: 1 }");
    assert.equal(await encodedBy(p, "1"), 1, "URL's binding cannot be made an accessor");
    await p.run("globalThis.URL.n = 2");
    assert.match(p.blob("URL") ?? "", /\["n",2\]|"n":2\b/);
    await p.run("void Object.defineProperty(globalThis, 'view', { get() { return v3 }, enumerable: true, configurable: true })");
    assert.equal(await encodedBy(p, "1"), 12, "the getter used v3 while the collect read it: every variable was encoded");
    assert.equal(await encodedBy(p, "print(typeof globalThis)"), 12);
    await p.run("view.n = 33");
    assert.match(p.blob("v3") ?? "", /\["n",33\]|"n":33\b/);
  });

  it("encodes the shared root's owner but not the other variables sharing it, until the owner lets it go", async () => {
    // Cold: every cell starts from a restore, with no groups (warm, the cells that made the instances reached the class).
    const p = pair({ mode: "cold" });
    await p.run("class Account { constructor(n) { this.n = n } }");
    for (let i = 0; i < 6; i++) await p.run(`const a${i} = new Account(${i})`);
    assert.equal(await encodedBy(p, "a3.n = 30"), 2, "a3 and the class it refers into");
    await p.run("a2.constructor.opened = 1");
    assert.match(p.blob("Account") ?? "", /"opened"/);
    assert.equal(await encodedBy(p, "Account = 5"), 7, "the instances now own the class");
    assert.match(p.blob("a0") ?? "", /"t":"fn"/);
  });

  it("restores the VM once groups cost more than the workspace, and starts them over", async () => {
    const p = pair();
    await p.run("for (let i = 0; i < 8; i++) globalThis['big' + i] = Array.from({ length: 2000 }, (_, k) => k + i)");
    await p.run("for (let i = 0; i < 8; i++) globalThis['big' + i][0] = -1");
    const counts = [];
    for (let i = 0; i < 4; i++) counts.push(await encodedBy(p, "big3[1] = -2"));
    assert.equal(counts[0], 8, "the cell that reached all of them grouped them");
    assert.equal(counts[counts.length - 1], 1, `the groups started over: ${counts.join(", ")}`);
  });

  it("counts what restoring did (cold): a class's static block using a variable, a definition that cannot be re-declared", async () => {
    const p = pair({ mode: "cold" });
    await p.run("function reg() {}\nconst other = 1\nconst more = [1]");
    await p.run("class Tally { static { reg.seen = true } }");
    // Definitions are restored before the other values, so the static block finds `reg`: its use is counted.
    assert.equal(await encodedBy(p, "1"), 1);
    await p.run("class Base {}\nclass Sub extends Base {}");
    await p.run("delete globalThis.Base");
    await p.run("print(other)");
    assert.match(p.blob("Sub") ?? "", /"\$":"tomb"/);
  });
});
