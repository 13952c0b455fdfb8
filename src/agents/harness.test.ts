import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type HarnessLimits, type ScriptedTurn, type StatekOptions } from "../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
/** A cell that raises a NameError when it runs (marked for the type checker, which would refuse it first). */
const NAME_ERROR = ts("// @ts-expect-error: there is no x\nx.y");

async function run(turns: ScriptedTurn[], limits: HarnessLimits, options: Partial<StatekOptions> & { metadata?: Record<string, string> } = {}) {
  const model = scriptedModel(turns);
  const fails = tool({ name: "fails", description: "Always fails.", params: z.object({}), run: () => { throw new Error("nope"); } });
  const { metadata, ...statekOptions } = options;
  const agent = new Agent({ role: "limited", model, harness: limits, tools: [fails], ...(metadata ? { metadata } : {}) });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], ...statekOptions });
  const { id } = await statek.submitJob(agent);
  const view = await statek.runJob(id);
  await statek.close();
  return { view, model };
}

describe("harness limits", () => {
  it("fails a job that raises more exceptions than maxExceptions, counting failed formal calls", async () => {
    const { view, model } = await run(
      [ts("throw new Error('a')"), { toolCalls: [{ name: "fails", args: {} }, { name: "fails", args: {} }] }, ts("exit()")],
      { maxExceptions: 2, maxConsecutiveExceptions: 10 },
      { metadata: { LLM_TOOLS_SCOPE: "ALL" } },
    );
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: the job raised 3 exceptions, more than its limit of 2 (maxExceptions)");
    assert.equal(model.requests.length, 2, "the model is not asked again");
  });

  it("fails a job whose turns raise exceptions too many times in a row, and resets the run on a clean turn", async () => {
    const { view } = await run(
      [NAME_ERROR, ts("print('fine')"), NAME_ERROR, NAME_ERROR, ts("exit()")],
      { maxConsecutiveExceptions: 1 },
    );
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: 2 turns in a row raised exceptions, more than the limit of 1 (maxConsecutiveExceptions)");
    assert.equal(view.turns, 4);
  });

  it("fails a job over maxTokens with the provider's token counts", async () => {
    const { view } = await run(
      [{ text: ts("1"), usage: { inputTokens: 600, outputTokens: 100 } }, { text: ts("2"), usage: { inputTokens: 700, outputTokens: 100 } }],
      { maxTokens: 1000 },
    );
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: the job used 1,500 tokens, more than its limit of 1,000 (maxTokens)");
    assert.deepEqual(view.usage, { inputTokens: 1300, cachedInputTokens: 0, outputTokens: 200, cost: null });
  });

  it("fails a job over maxCost, priced from the pricing table", async () => {
    const pricing = { "scripted/scripted-model": { input: 1, cachedInput: 0.1, output: 10 } };
    const { view } = await run(
      [
        { text: ts("1"), usage: { inputTokens: 2000, cachedInputTokens: 1000, outputTokens: 100 } },
        { text: ts("2"), usage: { inputTokens: 2000, cachedInputTokens: 1000, outputTokens: 100 } },
      ],
      { maxCost: 0.003 },
      { models: { pricing } },
    );
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: the job cost $0.0042, more than its limit of $0.003 (maxCost)");
    const turns = view.history.flatMap((record) => (record.kind === "model-response" ? [record.data.cost] : []));
    assert.deepEqual(turns, [0.0021, 0.0021], "each turn records its own cost: (1000 × 1 + 1000 × 0.1 + 100 × 10) / 1e6");
    assert.ok(Math.abs(view.usage.cost! - 0.0042) < 1e-12);
  });

  it("refuses to run under maxCost with a model that has no price", async () => {
    const { view } = await run([ts("1")], { maxCost: 1 });
    assert.equal(view.status, "FAILED");
    assert.match(view.error!, /^harness limit: maxCost is set but the model scripted\/scripted-model has no price, so the cost cannot be limited/);
  });

  it("stops a job with maxCost when a call's usage was not reported, priced or not; without limits it goes on, counting the unknown", async () => {
    const pricing = { "scripted/scripted-model": { input: 1, output: 10 } };
    const unreported = { inputTokens: null, cachedInputTokens: null, outputTokens: null };
    const limited = await run([{ text: ts("1"), usage: unreported }, ts("exit()")], { maxCost: 1 }, { models: { pricing } });
    assert.equal(limited.view.status, "FAILED");
    assert.equal(limited.view.error, "harness limit: maxCost is set but the provider did not report the usage of 1 model call " +
      "(model scripted/scripted-model), so the job's usage is unknown and the limit cannot be held");
    const free = await run([{ text: ts("1"), usage: unreported }, { text: ts("exit()"), usage: { inputTokens: 10, outputTokens: 1 } }], {}, { models: { pricing } });
    assert.equal(free.view.status, "DONE");
    assert.deepEqual(free.view.usage, { inputTokens: 10, cachedInputTokens: 0, outputTokens: 1, cost: 0.00002, unknownCalls: 1 });
    const turns = free.view.history.flatMap((record) => (record.kind === "model-response" ? [[record.data.usage, record.data.cost]] : []));
    assert.deepEqual(turns, [[unreported, undefined], [{ inputTokens: 10, cachedInputTokens: 0, outputTokens: 1 }, 0.00002]], "an unknown usage has no cost");
  });

  it("takes process-wide limits from Statek.open({ harness }) and lets the agent's own win", async () => {
    const global = await run(Array.from({ length: 5 }, () => ts("1")), {}, { harness: { maxTurns: 2 } });
    assert.equal(global.view.error, "harness limit: the job used all 2 of its model turns (maxTurns) without calling exit()");
    const own = await run(Array.from({ length: 5 }, () => ts("1")), { maxTurns: 3 }, { harness: { maxTurns: 2 } });
    assert.equal(own.view.error, "harness limit: the job used all 3 of its model turns (maxTurns) without calling exit()");
  });

  it("gives a restarted dialog job a fresh turn allowance", async () => {
    const model = scriptedModel([ts("1"), "First answer.", ts("2"), "Second answer.", ts("3"), ts("4"), ts("5")]);
    const agent = new Agent({ role: "chatty", model, harness: { maxTurns: 2 }, metadata: { CHAT_STYLE: "MD_DIALOG" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { message: "one" });
    assert.equal((await statek.runJob(id)).status, "DONE");
    await statek.pushMessage(id, "two");
    assert.equal((await statek.runJob(id)).status, "DONE");
    await statek.pushMessage(id, "three");
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: the job used all 2 of its model turns since the last user message (maxTurns) without ending its turn");
  });

  it("refuses unknown or negative limits when the agent is defined", () => {
    assert.throws(() => new Agent({ role: "x", harness: { maxTurn: 3 } as never }), /Agent 'x': unknown harness limit 'maxTurn'/);
    assert.throws(() => new Agent({ role: "x", harness: { maxCost: -1 } }), /Agent 'x': harness limit maxCost must be a number ≥ 0, got -1/);
  });
});
