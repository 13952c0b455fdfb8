/**
 * Difficulty through real jobs: a MODEL mapping picks each turn's model, prompt sections follow the level,
 * panic() raises it (an error above H), a harder example raises it, and each turn records its model and level.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, Statek, scriptedModel, type ModelProvider, type ScriptedModel } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A provider `test` whose model ids name scripted models; `packageName` only has to be importable. */
function testProvider(models: Record<string, ScriptedModel>): ModelProvider {
  return { name: "test", packageName: "zod", create: () => (id: string) => models[id]! };
}

async function run(agent: Agent, models: Record<string, ScriptedModel>, submit: Parameters<Statek["submitJob"]>[1] = {}) {
  const statek = await Statek.open({ store: ":memory:", agents: [agent], models: { providers: [testProvider(models)] } });
  try {
    const { id } = await statek.submitJob(agent, submit);
    return await statek.runJob(id);
  } finally {
    await statek.close();
  }
}

const responses = (view: { history: Array<{ kind: string; data: any }> }) => view.history.filter((record) => record.kind === "model-response").map((record) => record.data);

const PROMPT = "You help with orders.\n\n--- MH: Careful work ---\nCheck every total twice.\n\n<rules difficulty=\"H\">Ask a human before refunds.</rules>\n\n--- Style ---\nBe brief.";

describe("difficulty, through real jobs", () => {
  it("a MODEL mapping picks each turn's model; panic() raises the level one step; the prompt shows that level's sections", async () => {
    const small = scriptedModel([ts("print(panic())")], { provider: "test", modelId: "small" });
    const big = scriptedModel([ts("print(panic())"), ts("exit(ctxLevel())")], { provider: "test", modelId: "big" });
    const agent = new Agent({
      role: "orders",
      systemPrompt: PROMPT,
      metadata: { MODEL: "L:test/small,MH:test/big", DEFAULT_DIFFICULTY: "L" },
      context: { ctxLevel: () => "done" },
    });
    assert.ok(agent.registry.get("panic"), "an agent whose model depends on difficulty has panic()");
    const view = await run(agent, { small, big });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.difficulty, "H");
    assert.deepEqual(responses(view).map((turn) => [turn.model, turn.difficulty]), [["test/small", "L"], ["test/big", "M"], ["test/big", "H"]]);
    assert.deepEqual(view.history.filter((record) => record.kind === "difficulty").map((record) => record.data), [{ level: "M", from: "L" }, { level: "H", from: "M" }]);
    assert.deepEqual(view.console.slice(0, 2), ["difficulty raised to M", "difficulty raised to H"]);
    // The prompt of each level: L has neither limited section, M the MH one, H both; prefixes and attributes removed.
    assert.equal(small.requests[0]!.system, "You help with orders.\n\n--- Style ---\nBe brief.");
    assert.equal(big.requests[0]!.system, "You help with orders.\n\n--- Careful work ---\nCheck every total twice.\n\n--- Style ---\nBe brief.");
    assert.equal(big.requests[1]!.system, "You help with orders.\n\n--- Careful work ---\nCheck every total twice.\n\n<rules>Ask a human before refunds.</rules>\n\n--- Style ---\nBe brief.");
  });

  it("panic() above H is an error the model reads; the job goes on at H", async () => {
    const big = scriptedModel([ts("panic()"), ts("exit(1)")], { provider: "test", modelId: "big" });
    const agent = new Agent({ role: "top", metadata: { MODEL: "LMH:test/big", DEFAULT_DIFFICULTY: "high" } });
    const view = await run(agent, { big });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.difficulty, "H");
    assert.match(view.console[0]!, /^RangeError: the job is already at the highest difficulty \(H\)/);
  });

  it("a job's own DEFAULT_DIFFICULTY (typed defaultDifficulty) picks its starting model", async () => {
    const small = scriptedModel([ts("exit(1)")], { provider: "test", modelId: "small" });
    const big = scriptedModel([ts("exit(2)")], { provider: "test", modelId: "big" });
    const agent = new Agent({ role: "picked", metadata: { MODEL: "L:test/small,MH:test/big" } });
    const view = await run(agent, { small, big }, { defaultDifficulty: "L" });
    assert.equal(view.exitStatus, 1);
    assert.equal(view.difficulty, "L");
    const defaulted = await run(agent, { small: scriptedModel([]), big: scriptedModel([ts("exit(2)")], { provider: "test", modelId: "big" }) });
    assert.equal(defaulted.exitStatus, 2, "without one, a job starts at M");
    assert.equal(defaulted.difficulty, "M");
  });

  it("showing an example of a harder level raises the job to it", async () => {
    const small = scriptedModel([ts("showExample(1)")], { provider: "test", modelId: "small" });
    const big = scriptedModel([ts("exit(1)")], { provider: "test", modelId: "big" });
    const agent = new Agent({
      role: "learner",
      metadata: { MODEL: "L:test/small,MH:test/big", DEFAULT_DIFFICULTY: "L" },
      examples: [
        { name: "Easy refund", difficulty: "L", steps: [{ kind: "code", text: "refund(1)" }] },
        { name: "Disputed refund", difficulty: "H", steps: [{ kind: "code", text: "escalate(2)" }] },
      ],
    });
    const view = await run(agent, { small, big });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.difficulty, "H");
    assert.deepEqual(responses(view).map((turn) => turn.difficulty), ["L", "H"]);
  });

  it("a MODEL mapping that misses or repeats a level is refused when the agent is made", () => {
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "L:openai/gpt-5-nano,M:openai/gpt-5-mini" } }), {
      name: "TypeError", message: `Agent 'a': MODEL "L:openai/gpt-5-nano,M:openai/gpt-5-mini": no model for level H (every level L, M, H exactly once)`,
    });
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "LM:openai/gpt-5-nano,MH:openai/gpt-5-mini" } }), /level M is given twice/);
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "L:openai/gpt-5-nano,openai/gpt-5-mini" } }), /has no level label/);
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "LMH:gpt-5" } }), /MODEL "gpt-5" names no provider/);
    assert.throws(() => new Agent({ role: "a", metadata: { DEFAULT_DIFFICULTY: "hard" } }), /DEFAULT_DIFFICULTY must be L, M or H/);
  });
});
