/**
 * Hostile code, texts from the guest. The realm is locked down, but the host does not rely on it: these cases
 * forge the texts on their way to the host (`forge`, see `hostile-harness.ts`): references that name the
 * host's `Object.prototype`, `Function`, `Object.assign` and `Array.prototype`; thenables the host would adopt
 * and wait on forever; formatting that showed what `statek.expose` hides; one bad value that cost a whole
 * cell's variables; stored texts that made a job unreadable. Each case also proves the worker survives, a
 * concurrent job finishes and memory stays bounded (see `hostile-harness.ts`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent } from "../../src/agents/agent.ts";
import { Statek } from "../../src/jobs/statek.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { Tombstone } from "../../src/workspace/stored-values.ts";
import { hostileSuite } from "./hostile-harness.ts";

const OBJECT_PROTOTYPE = '{"v":{"$":"xref","n":"constructor","i":"prototype"}}';
const ARRAY_PROTOTYPE = '{"v":{"$":"ref","i":"__proto__"}}';
const FUNCTION = '{"v":{"$":"xref","n":"constructor","i":"constructor"}}';
const OBJECT_ASSIGN = '{"v":{"$":"xref","n":"constructor","i":"assign"}}';
const THENABLE = "TypeError: a value whose 'then' is a function cannot cross into the host (it would be taken for a promise)";

/** The host realm's built-ins are as they were. */
function hostUntouched(): void {
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype of the worker is untouched");
  assert.equal(([] as unknown[])[0], undefined, "Array.prototype of the worker is untouched");
  assert.equal(typeof Object.assign, "function");
}

hostileSuite("hostile code: texts from the guest", [
  {
    name: "a crafted reference to the host's Object.prototype, written through a public field",
    code: "calendar.owner = { any: 1 }",
    forge: { write: { member: "owner", text: OBJECT_PROTOTYPE } },
    expect: 'TypeError: malformed value: dangling reference to node "prototype"',
    check: (_view, calendar) => {
      assert.equal(calendar.owner, "ana");
      hostUntouched();
    },
  },
  {
    name: "a crafted reference to the host's Array.prototype, then a host method pushes into it",
    code: "calendar.received = { any: 1 }\ncalendar.keep('polluted')",
    forge: { write: { member: "received", text: ARRAY_PROTOTYPE } },
    expect: 'TypeError: malformed value: dangling reference to node "__proto__"',
    check: (_view, calendar) => {
      assert.ok(Array.isArray(calendar.received) && calendar.received !== Array.prototype);
      hostUntouched();
    },
  },
  {
    name: "a crafted reference to the host's Object.assign as an argument",
    code: "calendar.keep({ any: 1 })",
    forge: { arguments: { member: "keep", text: OBJECT_ASSIGN } },
    expect: 'TypeError: malformed value: dangling reference to node "assign"',
    check: (_view, calendar) => assert.deepEqual(calendar.received, []),
  },
  {
    name: "a crafted class tag naming the host's Object",
    code: "calendar.keep({ any: 1 })",
    forge: { arguments: { member: "keep", text: '{"v":{"$":"ref","i":0},"o":[{"t":"obj","c":{"$":"xref","n":"constructor","i":"prototype"},"p":[["polluted",true]]}]}' } },
    expect: 'TypeError: malformed value: dangling reference to node "prototype"',
    check: (_view, calendar) => {
      assert.deepEqual(calendar.received, []);
      hostUntouched();
    },
  },
  {
    name: "exit given a crafted text naming the host's Function",
    code: "exit({ any: 1 })",
    forge: { exit: { text: FUNCTION } },
    expect: 'TypeError: malformed value: dangling reference to node "constructor"',
  },
  {
    name: "a guest-made thenable planted in a host object's field",
    code: "calendar.owner = { then: formatSlot }",
    expect: THENABLE,
    check: (_view, calendar) => assert.equal(calendar.owner, "ana"),
  },
  {
    name: "a guest-made thenable handed to a tool and a host method",
    code: "try { twice({ then: formatSlot }) } catch (e) { print(e.message) }\ncalendar.keep([{ deep: { then: formatSlot } }])",
    expect: THENABLE,
    check: (view, calendar) => {
      assert.ok(view.console.includes(THENABLE.replace("TypeError: ", "")));
      assert.deepEqual(calendar.received, []);
    },
  },
  {
    name: "printing a handle shows only what statek.expose allows",
    code: "print(meeting)\nprint(String(meeting), `${meeting}`, meeting.toString())\nprint([meeting])\nmeeting",
    expect: 'Meeting {title:"standup",room:"A"}',
    expose: { allow: ["title", "room", "cancel"] },
    check: (view) => {
      assert.ok(!view.console.some((entry) => entry.includes("the host's notes")), view.console.join("\n"));
      assert.ok(view.console.includes('Meeting {title:"standup",room:"A"} Meeting {title:"standup",room:"A"} Meeting {title:"standup",room:"A"}'));
    },
  },
  {
    name: "a revoked proxy costs only its own variable",
    code: "const kept = 'kept'\nconst dead = (() => { const r = Proxy.revocable({}, {}); r.revoke(); return { p: r.proxy } })()",
    expect: /^dead was not persisted: it could not be read \(TypeError: .*revoked/,
    check: (view) => {
      assert.equal(view.variables.kept, "kept");
      assert.ok(view.variables.dead instanceof Tombstone);
    },
  },
  {
    name: "a detached ArrayBuffer costs only its own variable",
    code: "const kept = 'kept'\nconst buffer = new ArrayBuffer(16); const moved = buffer.transfer()",
    expect: "buffer was not persisted: it holds a detached ArrayBuffer (its contents were transferred away)",
    check: (view) => {
      assert.equal(view.variables.kept, "kept");
      assert.equal((view.variables.moved as ArrayBuffer).byteLength, 16);
    },
  },
  {
    name: "a value nested too deeply costs only its own variable",
    code: "const kept = 'kept'\nlet deep = {}; for (let i = 0; i < 5_000; i++) deep = { deep }",
    expect: "deep was not persisted: it is nested too deeply to be saved",
    check: (view) => assert.equal(view.variables.kept, "kept"),
  },
  {
    name: "a variable declared as __proto__",
    code: "const __proto__ = { polluted: true }",
    expect: "SyntaxError: a workspace variable cannot be named __proto__ (assigning it would replace the prototype of the global object)",
  },
  {
    name: "a global property named __proto__ is kept as data",
    code: "void Object.defineProperty(globalThis, '__proto__', { value: { a: 1 }, writable: true, enumerable: true, configurable: true })\nprint('defined')",
    expect: "defined",
    check: (view) => {
      assert.deepEqual(Object.getOwnPropertyDescriptor(view.variables, "__proto__")?.value, { a: 1 });
      assert.equal(Object.getPrototypeOf(view.variables), Object.prototype);
    },
  },
  {
    name: "a forged collect report whose texts run past their lengths",
    code: "globalThis.added = 1",
    // Two characters more than the header says (the ordinary job beside it reports as it should).
    forge: { report: (text) => (text.includes('["added",') ? text + "{}" : text) },
    expect: "the variables of this step could not be saved: TypeError: the workspace reported its variables in an unreadable form (2 characters follow the last text)",
    check: (view) => assert.ok(!("added" in view.variables), "nothing of the report was stored"),
  },
  {
    name: "a forged collect report whose header claims a longer text",
    code: "globalThis.added = 1",
    // The header says 17 characters where the report has 7 left.
    forge: { report: (text) => text.replace('"texts":[["added",', '"texts":[["added",1') },
    expect: /^the variables of this step could not be saved: TypeError: the workspace reported its variables in an unreadable form \(a text's name or length does not fit the report\)$/,
    check: (view) => assert.ok(!("added" in view.variables)),
  },
  {
    name: "a forged variable text that does not decode",
    code: "globalThis.forged = 1; globalThis.fine = 2",
    forge: { variable: { name: "forged", text: '{"v":{"$":"ref","i":"constructor"}}' } },
    expect: 'forged was not persisted: its value could not be read back (TypeError: malformed value: dangling reference to node "constructor")',
    check: (view) => {
      assert.ok(view.variables.forged instanceof Tombstone);
      assert.equal(view.variables.fine, 2);
    },
  },
]);

describe("hostile code: a guest-made thenable and another job", () => {
  it("a job that plants a thenable in a shared object gets an error; a second job reading it finishes, and close returns", { timeout: 20_000 }, async () => {
    class Board {
      note: unknown = "blank";
      read(): unknown {
        return this.note;
      }
      async readLater(): Promise<unknown> {
        return this.note;
      }
    }
    const board = new Board();
    const ts = (code: string) => "```ts\n" + code + "\n```";
    const planter = new Agent({
      role: "planter",
      context: { board, notify: () => "noted" },
      model: scriptedModel([ts("board.note = { then: notify }"), ts("exit('planted?')")]),
      // A hostile cell, outside the declarations on purpose: the host's decoding is what is tested.
      typeCheck: "off",
    });
    const reader = new Agent({
      role: "reader",
      context: { board },
      model: scriptedModel([ts("const seen = [board.read(), await board.read(), await board.readLater()]\nexit(seen)")]),
    });
    const statek = await Statek.open({ store: ":memory:", agents: [planter, reader], bindings: { board } });
    try {
      const planted = await statek.runJob((await statek.submitJob(planter)).id);
      assert.ok(planted.console.includes(THENABLE), planted.console.join("\n"));
      const read = await statek.runJob((await statek.submitJob(reader)).id);
      assert.equal(read.status, "DONE", read.error ?? read.console.join("\n"));
      assert.deepEqual(read.exitStatus, ["blank", "blank", "blank"]);
    } finally {
      await statek.close();
    }
  });
});
