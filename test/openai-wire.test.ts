import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, Statek, costOf, tool, BUILT_IN_PRICING, type AgentOptions, type ModelOptions } from "../src/index.ts";
import { startLoopbackServer, type ScriptedResponse } from "./support/loopback-server.ts";

/** A chat completion as OpenAI's API reference documents it. */
function completion(message: Record<string, unknown>, usage: { prompt: number; completion: number; cached?: number }, finish = "stop"): ScriptedResponse {
  return {
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_750_000_000,
      model: "gpt-5-mini-2025-08-07",
      choices: [{ index: 0, message: { role: "assistant", refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finish }],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: "default",
      system_fingerprint: null,
    },
  };
}

const openAiError = (status: number, message: string, type: string, headers: Record<string, string> = {}): ScriptedResponse => ({
  status, headers, body: { error: { message, type, param: null, code: null } },
});

const add = tool({
  name: "add",
  description: "Add two numbers.",
  params: z.object({ a: z.number().describe("First."), b: z.number().describe("Second.") }),
  run: ({ a, b }) => a + b,
});

async function runJob(responses: ScriptedResponse[], agent: Partial<AgentOptions> = {}, models: Partial<ModelOptions> = {}) {
  const server = await startLoopbackServer(responses);
  const delays: number[] = [];
  const definition = new Agent({ role: "wired", tools: [add], metadata: { MODEL: "openai/gpt-5-mini", LLM_TOOLS_SCOPE: "APPLICATION" }, ...agent });
  const statek = await Statek.open({
    store: ":memory:",
    agents: [definition],
    models: {
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, OLLAMA_BASE_URL: `${server.url}/v1` },
      initialDelayMs: 5,
      sleep: async (ms) => void delays.push(ms),
      ...models,
    },
  });
  try {
    const { id } = await statek.submitJob(definition, { message: "Add 2 and 3, then 1 and 2." });
    const view = await statek.runJob(id);
    return { view, requests: server.requests, delays };
  } finally {
    await statek.close();
    await server.close();
  }
}

describe("OpenAI chat completions, through @ai-sdk/openai, by a real job", () => {
  it("sends the conversation and tools, runs tool calls and code, retries 429 (Retry-After) and 500, and counts usage and cost", async () => {
    const { view, requests, delays } = await runJob([
      openAiError(429, "Rate limit reached for gpt-5-mini", "requests", { "retry-after-ms": "20" }),
      completion({
        content: "Adding.\n```ts\nconst small = add(1, 2)\nprint(small)\n```",
        tool_calls: [{ id: "call_abc", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":3}" } }],
      }, { prompt: 1200, completion: 40, cached: 1024 }, "tool_calls"),
      openAiError(500, "The server had an error while processing your request.", "server_error"),
      completion({ content: "```ts\nexit(small)\n```" }, { prompt: 1500, completion: 10, cached: 1280 }),
    ]);
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, 3);
    assert.deepEqual(delays, [20, 5], "the 429 waited what retry-after-ms said; the 500 the backoff");
    assert.equal(requests.length, 4);

    const first = requests[0]!;
    assert.equal(first.method, "POST");
    assert.equal(first.path, "/v1/chat/completions");
    assert.equal(first.headers.authorization, "Bearer sk-test");
    assert.equal(first.body.model, "gpt-5-mini");
    assert.equal(first.body.messages[0].role, "developer", "reasoning models take the system prompt as a developer message");
    assert.match(first.body.messages[0].content, /durable TypeScript workspace/);
    assert.deepEqual(first.body.messages.slice(1), [{ role: "user", content: "Add 2 and 3, then 1 and 2." }]);
    assert.deepEqual(first.body.tools.map((entry: any) => [entry.type, entry.function.name, entry.function.description]), [["function", "add", "Add two numbers."]]);
    assert.deepEqual(first.body.tools[0].function.parameters.properties, { a: { type: "number", description: "First." }, b: { type: "number", description: "Second." } });
    assert.equal(first.body.tools[0].function.strict, true, "OpenAI gets the strict profile, and is asked to hold to it");
    assert.equal(first.body.tools[0].function.parameters.additionalProperties, false);

    assert.deepEqual(requests[3]!.body, requests[2]!.body, "a retry sends the same request");
    assert.deepEqual(requests[3]!.body.messages.slice(2), [
      {
        role: "assistant",
        content: "```ts\n// Adding.\nconst small = add(1, 2)\nprint(small)\n```",
        tool_calls: [{ id: "call_abc", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":3}" } }],
      },
      { role: "tool", tool_call_id: "call_abc", content: "5" },
      { role: "user", content: "3" },
    ]);

    const price = BUILT_IN_PRICING["openai/gpt-5-mini"]!;
    const turns = view.history.flatMap((record) => (record.kind === "model-response" ? [record.data] : []));
    assert.deepEqual(turns.map((turn) => [turn.model, turn.usage]), [
      ["openai.chat/gpt-5-mini", { inputTokens: 1200, cachedInputTokens: 1024, outputTokens: 40 }],
      ["openai.chat/gpt-5-mini", { inputTokens: 1500, cachedInputTokens: 1280, outputTokens: 10 }],
    ]);
    assert.equal(turns[0]!.cost, costOf({ inputTokens: 1200, cachedInputTokens: 1024, outputTokens: 40 }, price));
    assert.deepEqual({ ...view.usage, cost: Number(view.usage.cost!.toFixed(10)) }, {
      inputTokens: 2700, cachedInputTokens: 2304, outputTokens: 50,
      cost: Number(((396 * 0.25 + 2304 * 0.025 + 50 * 2) / 1e6).toFixed(10)),
    });
  });

  it("fails the job, without retrying, on a malformed JSON body", async () => {
    const { view, requests } = await runJob([{ status: 200, body: "{\"id\": \"chatcmpl-test\", \"choices\": [" }]);
    assert.equal(view.status, "FAILED");
    assert.match(view.error!, /^model call failed: AI_APICallError: Invalid JSON response/);
    assert.equal(requests.length, 1);
  });

  it("fails the job after the retries when the server keeps answering 500", async () => {
    const error = openAiError(500, "The server had an error while processing your request.", "server_error");
    const { view, requests, delays } = await runJob([error, error, error]);
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "model call failed after 3 attempts: AI_APICallError: The server had an error while processing your request.");
    assert.equal(requests.length, 3);
    assert.deepEqual(delays, [5, 10]);
  });

  it("abandons a request that hangs past the timeout and retries it", async () => {
    const { view, requests } = await runJob(
      [{ hang: true }, completion({ content: "```ts\nexit('after the timeout')\n```" }, { prompt: 10, completion: 5 })],
      {},
      { timeoutMs: 300 },
    );
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, "after the timeout");
    assert.equal(requests.length, 2);
  });

  it("cancels a step in flight: the request is abandoned, nothing is committed, the call rejects with the reason", async () => {
    const server = await startLoopbackServer([{ hang: true }, completion({ content: "```ts\nexit('resumed')\n```" }, { prompt: 10, completion: 5 })]);
    const agent = new Agent({ role: "cancelled", metadata: { MODEL: "openai/gpt-5-mini" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], models: { env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${server.url}/v1` } } });
    const { id } = await statek.submitJob(agent);
    const controller = new AbortController();
    const reason = new Error("the worker is stopping");
    const step = statek.step(id, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await assert.rejects(step, (error) => error === reason);
    const row = await statek.store.getJob(id);
    assert.deepEqual([row!.status, row!.version, row!.turns], ["READY", 0, 0], "the abandoned step committed nothing");
    const view = await statek.runJob(id);
    await statek.close();
    await server.close();
    assert.equal(view.exitStatus, "resumed");
  });

  it("reaches an OpenAI-compatible local server (ollama/…) with no key, through @ai-sdk/openai-compatible", async () => {
    const { view, requests } = await runJob(
      [completion({ content: "```ts\nexit(40 + 2)\n```" }, { prompt: 100, completion: 8 })],
      { metadata: { MODEL: "ollama/qwen3" } },
    );
    assert.equal(view.exitStatus, 42);
    assert.equal(requests[0]!.path, "/v1/chat/completions");
    assert.equal(requests[0]!.body.model, "qwen3");
    assert.equal(requests[0]!.headers.authorization, undefined);
    assert.deepEqual(view.usage, { inputTokens: 100, cachedInputTokens: 0, outputTokens: 8, cost: null });
  });

  it("fails the job naming the variable when the key is missing", async () => {
    const { view, requests } = await runJob([], {}, { env: {} });
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "cannot use the job's MODEL: LoadApiKeyError: MODEL 'openai/gpt-5-mini' needs an API key: set OPENAI_API_KEY");
    assert.equal(requests.length, 0);
  });
});
