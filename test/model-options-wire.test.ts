/**
 * Model options through real jobs against a loopback OpenAI server: `TEMPERATURE` reaches the request, the
 * `MODEL` string's `key=value` segment is read as call options (never sent as part of the model id), `PROVIDER`
 * completes a string that names no provider, and an unknown option is refused when the agent is made.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent } from "../src/index.ts";
import { chatStream } from "./support/openai-chat-stream.ts";
import { runWireJob } from "./support/wire-job.ts";

const done = () => chatStream({ content: "```ts\nexit(1)\n```", usage: { prompt: 10, completion: 2 } });

describe("model options on the wire (OpenAI chat completions)", () => {
  it("TEMPERATURE is sent as temperature", async () => {
    const { view, requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "openai/gpt-4.1-mini", TEMPERATURE: "0.3" } } });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(requests[0]!.body.model, "gpt-4.1-mini");
    assert.equal(requests[0]!.body.temperature, 0.3);
  });

  it("without TEMPERATURE, no temperature is sent", async () => {
    const { requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "openai/gpt-4.1-mini" } } });
    assert.equal("temperature" in requests[0]!.body, false);
  });

  it("the model string's options segment sets reasoning and is never part of the model id", async () => {
    const { view, requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "openai/gpt-5/reasoning=high" } } });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(requests[0]!.body.model, "gpt-5");
    assert.equal(requests[0]!.body.reasoning_effort, "high");
    const turn = view.history.find((record) => record.kind === "model-response")!.data as { model: string };
    assert.equal(turn.model, "openai.chat/gpt-5");
  });

  it("a temperature option of the model string wins over TEMPERATURE", async () => {
    const { requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "openai/gpt-4.1-mini/temperature=0.1&maxOutputTokens=300", TEMPERATURE: 0.9 } } });
    assert.equal(requests[0]!.body.temperature, 0.1);
    assert.equal(requests[0]!.body.max_tokens, 300);
  });

  it("PROVIDER completes a model string that names no provider (typed: provider, temperature)", async () => {
    const { view, requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "gpt-4.1-mini" }, provider: "openai", temperature: 0 } });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(requests[0]!.path, "/v1/chat/completions");
    assert.equal(requests[0]!.body.model, "gpt-4.1-mini");
    assert.equal(requests[0]!.body.temperature, 0);
  });

  it("a MODEL mapping resolves each level's string with its own options", async () => {
    const { requests } = await runWireJob({ responses: [done()], agent: { metadata: { MODEL: "L:openai/gpt-4.1-nano,MH:openai/gpt-5/reasoning=low" } } });
    assert.equal(requests[0]!.body.model, "gpt-5", "a job starts at M");
    assert.equal(requests[0]!.body.reasoning_effort, "low");
  });

  it("an unknown option, a bad value or a TEMPERATURE out of range is refused when the agent is made", () => {
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "openai/gpt-5/rl=50" } }), {
      name: "TypeError",
      message: `Agent 'a': MODEL "openai/gpt-5/rl=50" has an unknown option 'rl' (known: reasoning, temperature, maxOutputTokens, topP, topK, seed, presencePenalty, frequencyPenalty)`,
    });
    assert.throws(() => new Agent({ role: "a", model: "openai/gpt-5/reasoning=extreme" }), /gives the option 'reasoning' the value 'extreme'/);
    assert.throws(() => new Agent({ role: "a", model: "openai/gpt-5/temperature=" }), /gives the option 'temperature' no value/);
    assert.throws(() => new Agent({ role: "a", metadata: { MODEL: "openai/gpt-5", TEMPERATURE: "1.5" } }), {
      name: "TypeError", message: `Agent 'a': metadata TEMPERATURE must be a number from 0 to 1, got "1.5"`,
    });
    assert.throws(() => new Agent({ role: "a", temperature: -1 }), /Agent 'a': temperature must be a number from 0 to 1, got -1/);
  });
});
