import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, Statek, scriptedModel, tool } from "../../index.ts";
import { parseWarmup } from "../../agents/warmup-blocks.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

describe("warmup code", () => {
  it("splits a warmup text into blocks at // ---------- lines and reads the hidden directive", () => {
    assert.deepEqual(parseWarmup("// statek: hidden\nconst key = 1\n// ----------\n\nconst events = []\n//---------- \n"), [
      { code: "const key = 1", hidden: true },
      { code: "const events = []", hidden: false },
    ]);
    assert.deepEqual(parseWarmup("a()\n// ---------\nb()"), [{ code: "a()\n// ---------\nb()", hidden: false }], "nine dashes do not split");
    assert.throws(() => parseWarmup("// statek: secret\nx()"), /warmup: line 1: invalid warmup directive "\/\/ statek: secret" \(expected "\/\/ statek: hidden", /);
  });

  it("runs one block per step (WARMING_UP), then asks the model in the step that ran the last block", async () => {
    const model = scriptedModel([ts("exit(total)")]);
    const agent = new Agent({ role: "warm", model, warmup: "let total = 1\n// ----------\ntotal += 10\nprint('block two')" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { warmup: "print('job warmup first')" });
    const first = await statek.step(id);
    assert.equal(first.status, "WARMING_UP");
    assert.deepEqual(first.console, ["job warmup first"]);
    assert.equal(model.requests.length, 0);
    const second = await statek.step(id);
    assert.equal(second.status, "WARMING_UP");
    const third = await statek.step(id);
    assert.equal(third.status, "STARTED");
    assert.equal(model.requests.length, 1, "the last block's step asked the model");
    assert.deepEqual(model.requests[0]!.messages.slice(1), [
      { role: "assistant", content: [{ type: "text", text: "```ts\nprint('job warmup first')\n```" }] },
      { role: "user", content: [{ type: "text", text: "job warmup first" }] },
      { role: "assistant", content: [{ type: "text", text: "```ts\nlet total = 1\n```" }] },
      { role: "user", content: [{ type: "text", text: "(no output)" }] },
      { role: "assistant", content: [{ type: "text", text: "```ts\ntotal += 10\nprint('block two')\n```" }] },
      { role: "user", content: [{ type: "text", text: "block two" }] },
    ]);
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.exitStatus, 11);
  });

  it("runs a hidden block, which may call hidden tools, without ever showing it to the model", async () => {
    const secret = tool({ name: "loadSecret", description: "Internal.", hidden: true, run: () => "s3cret" });
    const model = scriptedModel([ts("try { loadSecret() } catch (error) { exit(String(error)) }")]);
    const agent = new Agent({ role: "hidden", model, tools: [secret], warmup: [{ code: "const token = loadSecret()\nprint(token)", hidden: true }, { code: "print(token.length)" }] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { message: "Go." });
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.exitStatus, "NameError: tool 'loadSecret' is not exposed to this job", "later cells cannot call the hidden tool");
    assert.equal(view.variables.token, "s3cret");
    const seen = JSON.stringify(model.requests);
    assert.ok(!seen.includes("loadSecret") && !seen.includes("s3cret"), "neither the hidden code nor its output reaches the model");
    assert.deepEqual(model.requests[0]!.messages, [
      { role: "user", content: [{ type: "text", text: "Go." }] },
      { role: "assistant", content: [{ type: "text", text: "```ts\nprint(token.length)\n```" }] },
      { role: "user", content: [{ type: "text", text: "6" }] },
    ]);
  });

  it("fails the job when a block fails, naming the block, and never asks the model", async () => {
    const model = scriptedModel([ts("exit()")]);
    const agent = new Agent({ role: "broken", model, warmup: "const a = 1\n// ----------\nthrow new Error('boom')" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "warmup block 2 of 2 failed: Error: boom");
    assert.equal(model.requests.length, 0);
  });

  it("ends the job DONE when warmup code calls exit", async () => {
    const model = scriptedModel([]);
    const agent = new Agent({ role: "quick", model, warmup: "exit('early')" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const view = await statek.runJob((await statek.submitJob(agent)).id);
    await statek.close();
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, "early");
  });
});
