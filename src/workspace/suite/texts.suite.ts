/**
 * @module
 * Workspace suite, texts from the guest: a realm bug could let agent code write any text
 * (once, agent code could replace the guest's `JSON.stringify`), so the texts are forged here on their way
 * to the host (`forging-executor.ts`). Crafted texts never reach the host's intrinsics, a guest-made thenable is
 * never adopted, formatting a handle obeys the class policy, one unreadable value costs only its variable,
 * and a stored text that does not decode is a tombstone rather than a workspace that cannot open.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { tool } from "../../tools/tool.ts";
import { ExposedClasses } from "../membrane/exposed-classes.ts";
import type { SuiteContext } from "./harness.ts";

class Box {
  value: unknown = "empty";
  items: unknown[] = [];
  get(): unknown {
    return this.value;
  }
  add(item: unknown): number {
    return this.items.push(item);
  }
  later(): Promise<unknown> {
    return Promise.resolve(this.value);
  }
}

class Meeting {
  title = "standup";
  room = "A";
  privateNotes = "the host's secret";
  cancel(): string {
    return "cancelled";
  }
}

const untouched = () => {
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype is untouched");
  assert.equal(([] as unknown[])[0], undefined, "Array.prototype is untouched");
};

export function textCases({ test, session }: SuiteContext): void {
  test("texts: references in a crafted text never resolve to the host's intrinsics", async () => {
    const box = new Box();
    const attacks = [
      '{"v":{"$":"xref","n":"constructor","i":"prototype"}}',
      '{"v":{"$":"xref","n":"constructor","i":"assign"}}',
      '{"v":{"$":"ref","i":"__proto__"}}',
      '{"v":{"$":"ref","i":0},"o":[{"t":"obj","c":{"$":"xref","n":"constructor","i":"prototype"},"p":[["polluted",true]]}]}',
    ];
    for (const text of attacks) {
      const s = session({ globals: { box }, forgery: { write: { member: "items", text } } });
      const result = await s.run("box.items = { any: 1 }\nbox.add('polluted')");
      assert.match(result.error ?? "", /^TypeError: malformed value: /, text);
    }
    assert.deepEqual(box.items, [], "no write reached the host");
    untouched();
  });

  test("texts: exit given a crafted text is a clear error", async () => {
    const s = session({ forgery: { exit: { text: '{"v":{"$":"xref","n":"constructor","i":"constructor"}}' } } });
    const result = await s.run("exit({ any: 1 })");
    assert.equal(result.error, 'TypeError: malformed value: dangling reference to node "constructor"');
    assert.equal(result.exitStatus, undefined);
    assert.equal(await s.output("'still working'"), "still working");
  });

  test("texts: a thenable made by agent code never reaches the host", async () => {
    let called = 0;
    const box = new Box();
    const echo = tool({ name: "echo", description: "Returns its value.", params: z.object({ value: z.any().describe("v") }), run: ({ value }) => value });
    const s = session({ globals: { box, callMe: () => called++ }, tools: [echo] });
    const refusal = "TypeError: a value whose 'then' is a function cannot cross into the host (it would be taken for a promise)";
    assert.equal((await s.run("box.value = { then: callMe }")).error, refusal);
    assert.equal((await s.run("echo({ then: callMe })")).error, refusal);
    assert.equal((await s.run("box.add([{ nested: { then: callMe } }])")).error, refusal);
    assert.equal(await s.output("box.value = { then: 'data' }\nprint((await box.later()).then)"), "data", "a then that is data crosses");
    assert.equal(called, 0);
    assert.deepEqual(box.items, []);
  });

  test("texts: the host awaits only real promises, never another thenable", async () => {
    let adopted = 0;
    const box = new Box();
    box.value = { then: () => adopted++ };
    const s = session({ globals: { box } });
    assert.equal(await s.output("const got = box.get()\nprint(got instanceof Promise, typeof got.then)"), "false function");
    assert.equal(adopted, 0);
  });

  test("texts: formatting a handle or a tool result shows only what the class policy allows", async () => {
    const exposed = new ExposedClasses();
    exposed.register(Meeting, { allow: ["title", "cancel"] });
    const meeting = new Meeting();
    const pick = tool({ name: "pick", description: "Picks the meeting.", run: () => meeting });
    const s = session({ globals: { meeting }, exposed, tools: [pick] });
    const result = await s.ok("print(meeting)\nprint(String(meeting), `${meeting}`, meeting.toString())\nprint([meeting], { m: meeting })\nmeeting");
    assert.deepEqual(result.lines, [
      '[out] Meeting {title:"standup"}',
      '[out] Meeting {title:"standup"} Meeting {title:"standup"} Meeting {title:"standup"}',
      '[out] [Meeting {title:"standup"}] {m:Meeting {title:"standup"}}',
      '[echo] Meeting {title:"standup"}',
    ]);
    assert.equal((await s.run("throw meeting")).error, 'Error: uncaught Meeting {title:"standup"}');
    assert.equal((await s.formal("pick", {})).toolCalls[0]?.result, 'Meeting {title:"standup"}', "a tool result shown to the model too");
  });

  test("texts: one unreadable value costs only its own variable", async () => {
    const s = session();
    const result = await s.run(
      "const kept = { n: 1 }\nconst shared = [kept]\n" +
        "const dead = (() => { const r = Proxy.revocable({}, {}); r.revoke(); return { inner: r.proxy, kept } })()\n" +
        "let deep = []; for (let i = 0; i < 2000; i++) deep = [deep]\n" +
        "const buffer = new ArrayBuffer(8); const bytes = new Uint8Array(buffer); const moved = buffer.transfer()\n" +
        "void Object.defineProperty(globalThis, 'trap', { get() { throw new RangeError('no reading me') }, enumerable: true, configurable: true })",
    );
    assert.equal(result.error, undefined);
    assert.deepEqual(result.put.map((row) => row.name).sort(), ["buffer", "bytes", "dead", "deep", "kept", "moved", "shared", "trap"]);
    assert.equal(result.notices.length, 5, result.notices.join("\n"));
    assert.match(result.notices[0]!, /^dead was not persisted: it could not be read \(TypeError: .*revoked/);
    assert.deepEqual(result.notices.slice(1), [
      "deep was not persisted: it is nested too deeply to be saved",
      "buffer was not persisted: it holds a detached ArrayBuffer (its contents were transferred away)",
      "bytes was not persisted: it holds a detached ArrayBuffer (its contents were transferred away)",
      "trap was not persisted: it could not be read (RangeError: no reading me)",
    ]);
    assert.equal(await s.output("print(kept.n, shared[0] === kept, moved.byteLength)"), "1 true 8");
    assert.match((await s.run("dead.kept")).error ?? "", /^ReferenceError: dead was not persisted: it could not be read \(TypeError: .*revoked/);
  });

  test("texts: a variable named __proto__ is kept as data, and cannot be declared", async () => {
    const s = session();
    assert.equal(
      (await s.run("const __proto__ = { a: 1 }")).error,
      "SyntaxError: a workspace variable cannot be named __proto__ (assigning it would replace the prototype of the global object)",
    );
    const defined = await s.ok("void Object.defineProperty(globalThis, '__proto__', { value: { a: 1 }, writable: true, enumerable: true, configurable: true })");
    assert.deepEqual(defined.put.map((row) => row.name), ["__proto__"]);
    assert.equal(await s.output("print(Object.getOwnPropertyDescriptor(globalThis, '__proto__').value.a, Object.getPrototypeOf(globalThis) !== null)"), "1 true");
  });

  test("texts: a forged variable text that does not decode is stored as a tombstone", async () => {
    const s = session({ forgery: { variable: { name: "forged", text: '{"v":{"$":"nope"}}' } } });
    const result = await s.run("globalThis.forged = 1; globalThis.fine = 2");
    const why = 'its value could not be read back (TypeError: malformed value: unknown value tag "nope")';
    assert.ok(result.notices.includes(`forged was not persisted: ${why}`), result.notices.join("\n"));
    assert.match(s.blob("forged") ?? "", /^\{"v":\{"\$":"tomb"/);
    assert.equal(s.blob("fine"), '{"v":2}');
    assert.equal((await s.run("forged.n")).error, `ReferenceError: forged was not persisted: ${why}`);
  });

  test("texts: a stored text that cannot be decoded restores as a tombstone", async () => {
    const s = session();
    await s.ok("const broken = { n: 1 }; const other = [broken]; const fine = 'ok'");
    s.replaceStored("broken", '{"v":{"$":"ref","i":0},"o":[{"t":"obj","p":[["n",{"$":"nope"}]]}]}');
    const result = await s.run("print(fine, typeof other)");
    assert.deepEqual(result.texts("out"), ["ok object"]);
    const why = 'its stored value could not be read back (TypeError: malformed value: unknown value tag "nope")';
    assert.deepEqual(result.notices, [`broken was not persisted: ${why}`, "other[0] was not persisted: it shared a value with broken, whose stored value could not be read back"]);
    assert.equal((await s.run("broken.n")).error, `ReferenceError: broken was not persisted: ${why}`);
  });
}
