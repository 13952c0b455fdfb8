import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, NoSuchAgentError, Statek, StoredDefinition, Tombstone, scriptedModel, tool, type ScriptedTurn, type Tool } from "../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function run(turns: ScriptedTurn[], options: { tools?: Tool[]; vars?: Record<string, unknown>; limits?: object } = {}) {
  const model = scriptedModel(turns);
  const agent = new Agent({ role: "tester", model, tools: options.tools ?? [] });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], workspaceLimits: { cellTimeMs: 300, ...options.limits } });
  const { id } = await statek.submitJob(agent, { vars: options.vars ?? {} });
  const view = await statek.runJob(id);
  await statek.close();
  return { view, model };
}

const lastUserText = (model: ReturnType<typeof scriptedModel>) => {
  const messages = model.requests.at(-1)!.messages;
  const last = messages.at(-1)!;
  assert.equal(last.role, "user");
  return (last.content as Array<{ type: string; text: string }>).map((part) => part.text).join("");
};

describe("jobs", () => {
  it("runs cells until exit, with durable variables between steps", async () => {
    const { view } = await run([ts("const a = 20; let b = [1, 2]"), ts("b.push(a + 1)\nb"), ts("exit(b.length)")]);
    assert.equal(view.status, "DONE");
    assert.deepEqual(view.console, ["3", "[1,2,21]"], "each top-level expression statement is echoed");
    assert.equal(view.exitStatus, 3);
    assert.deepEqual(view.variables.b, [1, 2, 21]);
    assert.equal(view.turns, 3);
  });

  it("commits the model reply before executing it", async () => {
    const agent = new Agent({ role: "pending", model: scriptedModel([ts("print('ran')"), ts("exit()")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    const first = await statek.step(id);
    assert.equal(first.status, "STARTED");
    assert.deepEqual(first.console, [], "the reply is stored but not yet run");
    const row = await statek.store.getJob(id);
    assert.equal(first.history[row!.pendingSeq!]!.kind, "model-response");
    const second = await statek.step(id);
    assert.deepEqual(second.console, ["ran"]);
    await statek.close();
  });

  it("shows a thrown tool error in the console and in the next request, and goes on", async () => {
    const { view, model } = await run([ts("findSlot()"), ts("exit('after the error')")], {
      tools: [tool({ name: "findSlot", description: "Find a slot.", run: () => { throw new Error("no slot available"); } })],
    });
    assert.deepEqual(view.console, ["Error: no slot available"]);
    assert.equal(lastUserText(model), "Error: no slot available");
    assert.equal(view.status, "DONE");
    const call = view.history.find((record) => record.kind === "tool-call");
    assert.equal(call?.kind === "tool-call" && call.data.error, "Error: no slot available");
  });

  it("keeps agent code away from process, require, import(), the file system and the network", async () => {
    const { view } = await run([
      ts("print(typeof process, typeof require, typeof fetch, typeof Deno, typeof XMLHttpRequest, typeof WebSocket)"),
      ts("const fs = await import('node:fs')"),
      ts("exit()"),
    ]);
    assert.deepEqual(view.console, [
      "undefined undefined undefined undefined undefined undefined",
      "SyntaxError: import() is not available in the workspace",
    ]);
    assert.equal(view.status, "DONE");
  });

  it("stops an infinite loop at the CPU limit and continues with the next turn", async () => {
    const { view, model } = await run([ts("let i = 0; while (true) { i++ }"), ts("exit(i > 0)")]);
    assert.match(view.console[0]!, /^TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped$/);
    assert.match(lastUserText(model), /TimeoutError/);
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, true, "variables set before the loop was stopped are kept");
  });

  it("fails a looping script at the turn limit with a readable reason", async () => {
    const model = scriptedModel(Array.from({ length: 10 }, () => ts("1")));
    const agent = new Agent({ role: "looper", model, harness: { maxTurns: 3 } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: the job used all 3 of its model turns (maxTurns) without calling exit()");
    assert.equal(view.turns, 3);
  });

  it("fails the job with the model's error when the script is exhausted", async () => {
    const { view } = await run([ts("1")]);
    assert.equal(view.status, "FAILED");
    assert.match(view.error!, /^model call failed: ScriptExhaustedError: .*the script has 1 turn/);
  });

  it("keeps prose as comments and runs only ts/js fences", async () => {
    const { view, model } = await run([
      "First some prose.\n```json\n{\"not\": \"code\"}\n```\n```js\nprint('js ran')\n```\nMore prose.",
      ts("exit()"),
    ]);
    assert.deepEqual(view.console, ["js ran"]);
    const assistant = model.requests[1]!.messages[1]!;
    assert.deepEqual(assistant.content, [{
      type: "text",
      text: "```ts\n// First some prose.\n// ```json\n// {\"not\": \"code\"}\n// ```\nprint('js ran')\n// More prose.\n```",
    }]);
  });

  it("prints Error: no code submitted. for a reply without code", async () => {
    const { view } = await run(["I will think about it.", ts("exit()")]);
    assert.deepEqual(view.console, ["Error: no code submitted."]);
  });

  it("renders prompt placeholders: variables with types and tools", async () => {
    const model = scriptedModel([ts("exit()")]);
    const find = tool({
      name: "findEmptySlot",
      description: "Find an available calendar slot after a given time.\n\nMore detail here.",
      params: z.object({ after: z.date().describe("Earliest start."), minutes: z.number().default(30).describe("Length.") }),
      run: () => null,
    });
    const hidden = tool({ name: "internal", description: "Plumbing.", hidden: true, run: () => null });
    const agent = new Agent({
      role: "prompted",
      model,
      tools: [find, hidden],
      systemPrompt: "Vars: {shared_var_names}\nTools:\n{brief_tools}\nJSON stays: {\"a\": 1} {unknown} for {who}",
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { vars: { today: new Date(0), n: 1 }, params: { who: "Ada" } });
    await statek.runJob(id);
    await statek.close();
    assert.equal(
      model.requests[0]!.system,
      "Vars: today (Date), n (number)\nTools:\nfindEmptySlot(after, minutes?) — Find an available calendar slot after a given time.\n" +
        "JSON stays: {\"a\": 1} {unknown} for Ada",
    );
  });

  it("refuses to submit a host object that is not a binding, naming the variable", async () => {
    class User { name = "Ada"; }
    const agent = new Agent({ role: "refuser", model: scriptedModel([]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    await assert.rejects(statek.submitJob(agent, { vars: { user: new User() } }), {
      name: "TypeError",
      message: /^submitJob: these variables cannot be stored: user: a User host object that is neither a binding nor of an exposed class\. Pass host objects in Statek\.open/,
    });
    await assert.rejects(statek.submitJob(agent, { params: { when: new Date() } }), /params\.when is not a JSON value/);
    await statek.close();
  });

  it("names the role when a job's agent is not registered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-agent-"));
    try {
      const store = join(dir, "s.db");
      const first = await Statek.open({ store });
      const agent = new Agent({ role: "elsewhere", model: scriptedModel([ts("1")]) });
      const { id } = await first.submitJob(agent);
      await first.close();
      const second = await Statek.open({ store });
      await assert.rejects(second.step(id), (error: unknown) => {
        assert.ok(error instanceof NoSuchAgentError);
        assert.match(error.message, /no agent with role 'elsewhere' is registered in this process/);
        return true;
      });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("re-attaches bindings and exposed objects after a restart, and tombstones the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-bindings-"));
    try {
      const store = join(dir, "s.db");
      class Counter { count = 0; bump() { return ++this.count; } }
      class Item { readonly id: string; constructor(id: string) { this.id = id; } }
      class Loose { value = 1; }
      const items = new Map([["a", new Item("a")]]);
      const counter = new Counter();
      const makeAgent = (turns: ScriptedTurn[]) =>
        new Agent({ role: "binder", model: scriptedModel(turns), context: { items: { get: (key: string) => items.get(key) }, loose: () => new Loose() } });
      const firstAgent = makeAgent([ts("const c = counter; const item = items.get('a'); const l = loose(); c.bump()"), ts("print(c.bump(), item.id); l.value")]);
      const first = await Statek.open({ store, agents: [firstAgent], bindings: { counter } });
      first.expose(Item, { id: (item) => item.id, load: (id) => items.get(id) });
      const { id } = await first.submitJob(firstAgent, { vars: { counter } });
      await first.runJob(id, { maxSteps: 2 });
      await first.close();

      const second = await Statek.open({ store, agents: [makeAgent([ts("exit()")])], bindings: { counter } });
      second.expose(Item, { id: (item) => item.id, load: (id) => items.get(id) });
      const view = await second.step(id);
      await second.close();
      const why = "a Loose host object that is neither a binding nor of an exposed class";
      assert.deepEqual(view.console, ["1", `l was not persisted: ${why}`, "2 a", `ReferenceError: l was not persisted: ${why}`]);
      assert.equal(view.variables.c, counter);
      assert.equal(view.variables.item, items.get("a"));
      assert.ok(view.variables.l instanceof Tombstone);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows functions as stored definitions in the job view", async () => {
    const { view } = await run([ts("function twice(x: number) { return x * 2 }"), ts("exit(twice(2))")]);
    assert.ok(view.variables.twice instanceof StoredDefinition);
    assert.equal((view.variables.twice as StoredDefinition).name, "twice");
    assert.equal(view.exitStatus, 4);
  });

  it("runs formal tool calls through the same path and returns their results to the model", async () => {
    const { view, model } = await run(
      [{ toolCalls: [{ name: "add", args: { a: 2, b: 3 } }, { name: "nope", args: {} }] }, ts("exit()")],
      { tools: [tool({ name: "add", description: "Add.", params: z.object({ a: z.number().describe("a"), b: z.number().describe("b") }), run: ({ a, b }) => a + b })] },
    );
    assert.equal(view.status, "DONE");
    const toolMessage = model.requests[1]!.messages.find((message) => message.role === "tool")!;
    assert.deepEqual(toolMessage.content, [
      { type: "tool-result", toolCallId: "call-0-0", toolName: "add", output: { type: "text", value: "5" } },
      { type: "tool-result", toolCallId: "call-0-1", toolName: "nope", output: { type: "error-text", value: "NameError: tool 'nope' not found" } },
    ]);
  });

  it("sends a failed formal call's own prints to the model before its error", async () => {
    const noisy = tool({ name: "noisy", description: "Prints, then fails.", run: (_args, ctx) => { ctx.print("checked 3 slots"); throw new Error("none free"); } });
    const { model } = await run([{ toolCalls: [{ name: "noisy", args: {} }] }, ts("exit()")], { tools: [noisy] });
    const toolMessage = model.requests[1]!.messages.find((message) => message.role === "tool")!;
    assert.deepEqual(toolMessage.content, [
      { type: "tool-result", toolCallId: "call-0-0", toolName: "noisy", output: { type: "error-text", value: "checked 3 slots\nError: none free" } },
    ]);
  });

  it("serialises concurrent steps of one job within a process", async () => {
    const agent = new Agent({ role: "racer", model: scriptedModel([ts("globalThis.k = (globalThis.k ?? 0) + 1"), ts("k"), ts("exit()")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    await Promise.all([statek.step(id), statek.step(id), statek.step(id)]);
    const view = await statek.step(id);
    await statek.close();
    assert.deepEqual(view.console, ["1"]);
    assert.equal(view.status, "DONE");
  });

  it("lists jobs newest first and filters by status", async () => {
    const agent = new Agent({ role: "lister", model: scriptedModel([ts("exit()")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const a = await statek.submitJob(agent);
    const b = await statek.submitJob(agent);
    await statek.runJob(a.id);
    assert.deepEqual((await statek.listJobs({ status: "DONE" })).map((job) => job.id), [a.id]);
    assert.deepEqual((await statek.listJobs({ status: "READY" })).map((job) => job.id), [b.id]);
    assert.equal(await statek.getJob("no-such-id"), null);
    await statek.close();
  });
});
