/**
 * @module
 * Workspace suite, tools: tools are callable from agent code, positionally or by name,
 * sync or async; arguments are validated, errors are catchable and recorded, results that are host objects
 * come back as handles, and formal calls take the same path.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { tool } from "../../tools/tool.ts";
import type { SuiteContext } from "./harness.ts";

class Slot {
  start: number;
  constructor(start: number) {
    this.start = start;
  }
  later(minutes: number): Slot {
    return new Slot(this.start + minutes);
  }
}

function tools() {
  const seen: unknown[] = [];
  const twice = tool({
    name: "twice",
    description: "Doubles a number.",
    params: z.object({ x: z.number().describe("The number.") }),
    run: ({ x }) => x * 2,
  });
  const greet = tool({
    name: "greet",
    description: "Greets someone.",
    params: z.object({ name: z.string().describe("Who."), punctuation: z.string().default("!").describe("End mark.") }),
    run: async ({ name, punctuation }) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return `hi ${name}${punctuation}`;
    },
  });
  const boom = tool({
    name: "boom",
    description: "Always fails.",
    params: z.object({ async: z.boolean().default(false).describe("Fail asynchronously.") }),
    run: ({ async }) => {
      if (async) return Promise.reject(new TypeError("kaput later"));
      throw new RangeError("kaput");
    },
  });
  const makeSlot = tool({
    name: "makeSlot",
    description: "A slot.",
    params: z.object({ start: z.number().describe("Start minute.") }),
    run: ({ start }) => new Slot(start),
  });
  const inspect = tool({
    name: "inspect",
    description: "Receives a slot.",
    params: z.object({ slot: z.instanceof(Slot).describe("A slot.") }),
    run: ({ slot }) => {
      seen.push(slot);
      return slot.start;
    },
  });
  const slow = tool({
    name: "slow",
    description: "Waits on the host.",
    params: z.object({ ms: z.number().describe("Milliseconds.") }),
    run: async ({ ms }, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      ctx.print("slept", ms);
      return ms;
    },
  });
  return { seen, list: [twice, greet, boom, makeSlot, inspect, slow] };
}

export function toolCases({ test, session }: SuiteContext): void {
  test("tools: positional and named calls", async () => {
    const s = session({ tools: tools().list });
    assert.equal(await s.output("print(twice(2), twice({ x: 3 }), await greet('ana', '?'), await greet({ name: 'bo', punctuation: '.' }))"), "4 6 hi ana? hi bo.");
  });

  test("tools: defaults are applied", async () => {
    const s = session({ tools: tools().list });
    const result = await s.ok("await greet('cy')\nawait greet({ name: 'di' })");
    assert.deepEqual(result.texts("echo"), ["hi cy!", "hi di!"]);
    assert.deepEqual(result.toolCalls.map((call) => call.args), ['{name:"cy",punctuation:"!"}', '{name:"di",punctuation:"!"}']);
  });

  test("tools: sync and async tools can both be awaited", async () => {
    const s = session({ tools: tools().list });
    assert.equal(await s.output("const pending = greet('x')\nprint(typeof pending.then, await twice(4), await pending)"), "function 8 hi x!");
  });

  test("tools: a thrown error is printed and catchable", async () => {
    const s = session({ tools: tools().list });
    assert.equal((await s.run("boom()")).error, "RangeError: kaput");
    assert.equal((await s.run("await boom(true)")).error, "TypeError: kaput later");
    assert.equal(
      await s.output("try { boom() } catch (e) { print(e.name, e.message, e instanceof Error) }\ntry { await boom({ async: true }) } catch (e) { print(e.name, e.message) }"),
      "RangeError kaput true\nTypeError kaput later",
    );
  });

  test("tools: validation errors are readable", async () => {
    const s = session({ tools: tools().list });
    assert.equal((await s.run("twice('a')")).error, 'ValidationError: twice(x): expected a number, got "a"');
    assert.equal((await s.run("twice()")).error, "ValidationError: twice(x): missing required argument (expected a number)");
    assert.equal(await s.output("try { twice('a') } catch (e) { print(e.name) }"), "ValidationError");
  });

  test("tools: too many arguments are refused", async () => {
    const s = session({ tools: tools().list });
    assert.equal((await s.run("twice(1, 2)")).error, "ValidationError: twice: expected at most 1 argument (x), got 2");
  });

  test("tools: host-object results come back as handles", async () => {
    const toolset = tools();
    const s = session({ tools: toolset.list });
    assert.equal(
      await s.output("const slot = makeSlot(10)\nprint(slot.start, slot.later(5).start, slot === slot, Object.getPrototypeOf(slot), inspect(slot))"),
      "10 15 true null 10",
    );
    assert.ok(toolset.seen[0] instanceof Slot, "the tool received the host object itself");
    assert.equal(await s.output("inspect({ slot: makeSlot(7) })"), "7");
  });

  test("tools: calls are recorded with arguments, result and error", async () => {
    const s = session({ tools: tools().list });
    const result = await s.run("twice(21)\ntry { twice('z') } catch {}\nawait greet('ana')\nboom()");
    const records = result.toolCalls.map(({ durationMs, ...rest }) => {
      assert.equal(typeof durationMs, "number");
      return rest;
    });
    assert.deepEqual(records, [
      { name: "twice", origin: "code", args: "{x:21}", result: "42" },
      { name: "twice", origin: "code", args: '["z"]', error: 'ValidationError: twice(x): expected a number, got "z"' },
      { name: "greet", origin: "code", args: '{name:"ana",punctuation:"!"}', result: "hi ana!" },
      { name: "boom", origin: "code", args: "{async:false}", error: "RangeError: kaput" },
    ]);
  });

  test("tools: formal calls take the same path", async () => {
    const s = session({ tools: tools().list });
    const ok = await s.formal("greet", { name: "eve" }, "call-7");
    assert.deepEqual(ok.toolCalls.map(({ durationMs: _, ...rest }) => rest), [
      { name: "greet", origin: "formal", callId: "call-7", args: '{name:"eve",punctuation:"!"}', result: "hi eve!" },
    ]);
    const failed = await s.formal("twice", { x: "no" }, "call-8");
    assert.equal(failed.toolCalls[0]?.error, 'ValidationError: twice(x): expected a number, got "no"');
    const unknown = await s.formal("x", { a: 1 }, "call-9");
    assert.deepEqual(unknown.toolCalls.map(({ durationMs: _, ...rest }) => rest), [
      { name: "x", origin: "formal", callId: "call-9", args: "{a:1}", error: "NameError: tool 'x' not found" },
    ]);
    assert.equal(unknown.error, undefined);
  });

  test("tools: tools are in scope but are not variables", async () => {
    const s = session({ tools: tools().list });
    const result = await s.ok("print(typeof twice, twice.name, twice.description)\ntwice");
    assert.deepEqual(result.lines, ["[out] function twice Doubles a number.", "[echo] [tool twice]"]);
    assert.deepEqual(result.put, []);
    assert.equal((await s.run("twice.run")).error, "TypeError: tool twice has no member 'run'");
  });

  test("tools: a tool kept in a variable persists", async () => {
    const s = session({ tools: tools().list });
    const first = await s.ok("const double = twice; const table = { op: twice }");
    assert.deepEqual(first.notices, []);
    assert.equal(await s.output("print(double(5), table.op(6), double === twice)"), "10 12 true");
  });

  test("tools: ctx.print writes the console", async () => {
    const s = session({ tools: tools().list });
    const result = await s.ok("await slow(1)");
    assert.deepEqual(result.lines, ["[out] slept 1", "[echo] 1"]);
  });

  test("tools: time spent waiting for the host is not CPU time", async () => {
    const s = session({ tools: tools().list, limits: { cellTimeMs: 150 } });
    const result = await s.ok("await slow(100)\nawait slow(100)\nawait slow(100)");
    assert.deepEqual(result.texts("echo"), ["100", "100", "100"]);
  });
}
