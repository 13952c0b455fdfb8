/**
 * @module
 * Workspace suite, the realm: the intrinsics are frozen when the VM is made, so a cell cannot
 * change the realm the next cell runs in — a warm VM (one workspace kept open) and a cold one (a workspace
 * restored from the stored rows before every cell) print the same; the override mistake is avoided; agent
 * code's own globals stay writable; the runtime keeps working whatever a cell does to the globals;
 * `performance.now()` crosses the host; the global set is the same in every executor.
 */
import assert from "node:assert/strict";
import { Workspace, type WorkspaceReport } from "../workspace.ts";
import { WORKSPACE_ABSENT, WORKSPACE_EXTRA_GLOBALS, WORKSPACE_GLOBALS_NOTE, WORKSPACE_TASKS, WORKSPACE_TIMERS, WORKSPACE_WAITS } from "../workspace-notes.ts";
import type { SuiteContext } from "./harness.ts";

/** Every global a workspace has before agent code runs (with the runtime's own and the tools it is given). */
export const WORKSPACE_GLOBALS = [
  "AggregateError", "Array", "ArrayBuffer", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean", "DOMException", "DataView", "Date",
  "Error", "EvalError", "Float16Array", "Float32Array", "Float64Array", "Function", "Infinity", "Int16Array", "Int32Array", "Int8Array",
  "Iterator", "JSON", "Map", "Math", "NaN", "Number", "Object", "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp",
  "Set", "SharedArrayBuffer", "String", "Symbol", "SyntaxError", "TextDecoder", "TextEncoder", "TypeError", "URIError", "URL",
  "URLSearchParams", "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray", "WeakMap", "WeakSet", "__statek", "atob", "btoa",
  "clearInterval", "clearTimeout", "console", "getAll", "getAny", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "eval", "exit", "globalThis", "isFinite",
  "isNaN", "parseFloat", "parseInt", "performance", "print", "queueMicrotask", "setInterval", "setTimeout", "sleep", "structuredClone", "undefined",
  "requestApproval", "unescape", "until", "waitForMessage", "findTask", "completeTask", "failTask",
];

/** What a cell showed: its console lines and its error. */
function shown(report: WorkspaceReport): string[] {
  const lines = report.console.map((entry) => `[${entry.stream}] ${entry.text}`);
  return report.error === undefined ? lines : [...lines, `error: ${report.error}`];
}

/** A cell (in the walks below) that prints the paths of the intrinsics it can reach that are not frozen. */
const FIND_UNFROZEN = `{
  // The runtime's own globals are not intrinsics (and the trusted executor's internals are host objects).
  const runtime = new Set(["console", "print", "exit", "globalThis"])
  const seen = new Set([globalThis])
  const unfrozen = []
  const visit = (value, path) => {
    if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) return
    seen.add(value)
    if (!Object.isFrozen(value)) unfrozen.push(path)
    visit(Object.getPrototypeOf(value), path + ".__proto__")
    for (const key of Reflect.ownKeys(value)) {
      const desc = Object.getOwnPropertyDescriptor(value, key)
      const at = path + "." + String(key)
      if ("value" in desc) visit(desc.value, at)
      else { visit(desc.get, at + "<get>"); visit(desc.set, at + "<set>") }
    }
  }
  for (const name of Object.getOwnPropertyNames(globalThis)) if (!runtime.has(name) && !name.startsWith("__statek")) visit(globalThis[name], name)
  const probes = {
    generator: function* () {}, asyncGenerator: async function* () {}, asyncFunction: async function () {},
    arrayIterator: [][Symbol.iterator](), mapIterator: new Map().entries(), setIterator: new Set().values(),
    stringIterator: ""[Symbol.iterator](), regExpStringIterator: /a/g[Symbol.matchAll]("a"),
    iteratorHelper: [].values().map((x) => x), wrappedIterator: Iterator.from({ next() {} }),
    searchParamsIterator: new URLSearchParams("a=1").keys(), throwTypeError: Object.getOwnPropertyDescriptor((function () { "use strict"; return arguments })(), "callee").get,
    url: new URL("http://a/"), encoder: new TextEncoder(), decoder: new TextDecoder(), params: new URLSearchParams(),
  }
  for (const [name, probe] of Object.entries(probes)) visit(Object.getPrototypeOf(probe), name + ".__proto__")
  print(unfrozen.length ? unfrozen.join(", ") : "all frozen")
}`;

export function realmCases({ test, session, executor }: SuiteContext): void {
  /** Runs `cells` in one workspace kept open (warm) and, cell by cell, in workspaces restored from rows (cold). */
  const bothWays = async (cells: readonly string[]): Promise<string[][]> => {
    const cold = session();
    const coldShown: string[][] = [];
    for (const cell of cells) coldShown.push(shown(await cold.run(cell)));
    const workspace = await Workspace.open(
      { executor: executor(), limits: { cellTimeMs: 2_000 }, job: { id: "job-1", role: "tester" }, tools: [], globals: {}, bindings: new Map() },
      [],
    );
    const warmShown: string[][] = [];
    try {
      for (const cell of cells) warmShown.push(shown(await workspace.runCell(cell)));
    } finally {
      workspace.dispose();
    }
    assert.deepEqual(warmShown, coldShown, "a warm VM must show what a cold one shows");
    return coldShown;
  };

  test("realm: writes to built-ins do nothing in cell code, warm and cold alike", async () => {
    const [first, second] = await bothWays([
      "Array.prototype.extra = 1; Object.prototype.polluted = 2; JSON.stringify = () => 'forged'; Math.max = () => 0\n" +
        "Array.prototype.map = null; String.prototype.trim.cache = {}; delete Array.prototype.push; Promise.prototype.then = null\n" +
        "globalThis.WeakRef = 1; delete globalThis.Map; Error.stackTraceLimit = 0\n" +
        "print([].extra, ({}).polluted, JSON.stringify({ a: 1 }), Math.max(1, 2), typeof [].map, typeof [].push, typeof Map)",
      "print([].extra, ({}).polluted, JSON.stringify({ a: 1 }), Math.max(1, 2), typeof [].map, typeof [].push, typeof Map, String.prototype.trim.cache, typeof Promise.prototype.then)",
    ]);
    assert.deepEqual(first, ['[out] undefined undefined {"a":1} 2 function function function']);
    assert.deepEqual(second, ['[out] undefined undefined {"a":1} 2 function function function undefined function']);
  });

  test("realm: writes to built-ins throw a TypeError in strict code", async () => {
    const s = session();
    const attempts = [
      "Object.prototype.x = 1", "Array.prototype.push = null", "JSON.parse = null", "Object.defineProperty(Array.prototype, 'y', { value: 1 })",
      "Object.setPrototypeOf(Array.prototype, null)", "Object.prototype.toString = null", "delete Math.PI", "Function.prototype.constructor = null",
    ];
    const output = await s.output(
      `const attempts = ${JSON.stringify(attempts)}\n` +
        "for (const attempt of attempts) { try { new Function('\"use strict\";' + attempt)(); print('allowed: ' + attempt) } catch (e) { print(e.name) } }\n" +
        "print(Reflect.setPrototypeOf(Object.prototype, {}), Reflect.defineProperty(Math, 'tau', { value: 6.28 }), Object.isFrozen(Object.prototype))",
    );
    assert.equal(output, [...attempts.map(() => "TypeError"), "false false true"].join("\n"));
    const inClass = await s.run("class Patcher { static patch() { Array.prototype.sum = function () { return 1 } } }\nPatcher.patch()");
    assert.match(inClass.error ?? "", /^TypeError: /);
  });

  test("realm: every intrinsic reachable from the globals is frozen", async () => {
    assert.equal(await session().output(FIND_UNFROZEN), "all frozen");
  });

  test("realm: instances may still override inherited members (no override mistake)", async () => {
    const s = session();
    await s.ok(
      "class MyError extends Error { constructor(m) { super(m); this.name = 'MyError' } }\n" +
        "const failure = new MyError('boom')\n" +
        "const record = {}\nrecord.toString = 'text'\nrecord.constructor = 'ctor'\nrecord.valueOf = 7\nrecord.hasOwnProperty = 'own'\nrecord.toJSON = 'json'\n" +
        "const error = new TypeError('x')\nerror.message = 'changed'\nerror.name = 'Renamed'\n" +
        "const merged = Object.assign({}, { toString: 1, isPrototypeOf: 2 })",
    );
    const output = await s.output(
      "const when = new Date(0)\nwhen.toJSON = () => 'then'\nconst fn = () => 1\nfn.toString = () => 'source'\nconst list = [1]\nlist.toString = () => 'list'\n" +
        "function Legacy() {}\nLegacy.prototype = Object.create(Object.prototype)\nLegacy.prototype.constructor = Legacy\nLegacy.prototype.toString = function () { return 'legacy' }\n" +
        "print(String(failure), failure instanceof Error, Object.keys(failure).join())\n" +
        "print(record.toString, record.constructor, record.valueOf, record.hasOwnProperty, record.toJSON, Object.keys(record).join())\n" +
        "print(String(error), Object.keys(merged).join(), String(new Legacy()), new Legacy().constructor === Legacy)\n" +
        "print(JSON.stringify({ when }), fn.toString(), String(list))",
    );
    assert.equal(
      output,
      "MyError: boom true name\n" +
        "text ctor 7 own json toString,constructor,valueOf,hasOwnProperty,toJSON\n" +
        "Renamed: changed toString,isPrototypeOf legacy true\n" +
        '{"when":"then"} source list',
    );
  });

  test("realm: globals a cell creates stay writable, also under built-in names", async () => {
    const [, second] = await bothWays([
      "const URL = 'https://example.com'\nvar escape = (text) => text + '!'\nglobalThis.counter = 1\ncounter++\ndelete globalThis.Map",
      "counter++\nprint(URL, escape('a'), counter, typeof Map)",
    ]);
    assert.deepEqual(second, ["[out] https://example.com a! 3 function"]);
  });

  test("realm: tools and context values may take a built-in's name", async () => {
    const s = session({ globals: { URL: "https://app.example", performance: { score: 3 } } });
    assert.equal(await s.output("print(URL, performance.score)"), "https://app.example 3");
  });

  test("realm: replacing globals the runtime relies on breaks only the cell's own use of them", async () => {
    const s = session();
    await s.ok(
      "const kept = { when: new Date(5), tags: new Set(['a']), index: new Map([[1, 'one']]), bytes: new Uint8Array([1, 2]) }\n" +
        "globalThis.JSON = { stringify: () => 'forged', parse: () => ({}) }\nglobalThis.Object = null\nglobalThis.Map = null\nglobalThis.Array = null\n" +
        "globalThis.Proxy = null\nglobalThis.Promise = null\nglobalThis.Reflect = null\nglobalThis.Set = function () {}",
    );
    assert.equal(
      await s.output("print(kept.when.getTime(), [...kept.tags].join(), kept.index.get(1), kept.bytes.join(), typeof JSON.stringify, Object, Map)"),
      "5 a one 1,2 function null null",
    );
  });

  test("realm: the global set is the same in every executor, without WeakRef or FinalizationRegistry", async () => {
    assert.equal(await session().output("Object.getOwnPropertyNames(globalThis).sort().filter((name) => !name.startsWith('__statek') || name === '__statek').join(' ')"), [...WORKSPACE_GLOBALS].sort().join(" "));
    assert.equal(await session().output("print(typeof WeakRef, typeof FinalizationRegistry, typeof Intl, typeof WebAssembly, typeof InternalError)"), "undefined undefined undefined undefined undefined");
  });

  test("realm: the system prompt's note names globals the workspace has, and the absent ones are absent", async () => {
    const present = [...WORKSPACE_EXTRA_GLOBALS, ...WORKSPACE_TIMERS, ...WORKSPACE_WAITS, ...WORKSPACE_TASKS].map((name) => `typeof ${name}`).join(", ");
    const absent = WORKSPACE_ABSENT.filter((name) => name !== "import").map((name) => `typeof ${name}`).join(", ");
    assert.equal(await session().output(`print(${present})\nprint(${absent})`), `${[...WORKSPACE_EXTRA_GLOBALS, ...WORKSPACE_TIMERS, ...WORKSPACE_WAITS, ...WORKSPACE_TASKS].map((name) => (name === "console" || name === "performance" ? "object" : "function")).join(" ")}\nundefined undefined undefined`);
    for (const name of [...WORKSPACE_EXTRA_GLOBALS.filter((global) => global !== "console" && global !== "exit"), ...WORKSPACE_TIMERS, ...WORKSPACE_WAITS, ...WORKSPACE_TASKS, ...WORKSPACE_ABSENT]) {
      assert.ok(WORKSPACE_GLOBALS_NOTE.includes(name), `the note names ${name}`);
    }
  });

  test("realm: performance.now() crosses the host and is recorded", async () => {
    let ticks = 0;
    const s = session({ monotonic: () => (ticks += 1.5) });
    const result = await s.ok("const a = performance.now()\nconst b = performance.now()\nperformance.now = () => 0\nprint(typeof a, b >= a, performance.now() >= b, Object.isFrozen(performance))");
    assert.deepEqual(result.texts("out"), ["number true true true"]);
    const reads = result.crossings.filter((crossing) => crossing.op === "monotonic");
    assert.equal(reads.length, 3);
    assert.deepEqual(reads.map((crossing) => [crossing.effect, crossing.result]), [["read", "n1.5"], ["read", "n3"], ["read", "n4.5"]], "the values come from the host's source");
  });

  test("realm: queueMicrotask runs callbacks in order and an exception ends the cell", async () => {
    const s = session();
    assert.equal(
      await s.output("{ const order = []\nqueueMicrotask(() => order.push('micro'))\nPromise.resolve().then(() => order.push('promise'))\norder.push('sync')\nawait null; await null\nprint(order.join()) }"),
      "sync,micro,promise",
    );
    assert.equal((await s.run("queueMicrotask(() => { throw new RangeError('in a microtask') })")).error, "RangeError: in a microtask");
    assert.equal((await s.run("queueMicrotask(() => { throw new RangeError('later') })\nawait null\nprint('the queue goes on')")).error, "RangeError: later");
    assert.equal((await s.run("queueMicrotask(5)")).error, "TypeError: queueMicrotask: the callback is not a function");
  });
}
