import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, Statek, tool, type AgentOptions, type ModelOptions } from "../src/index.ts";
import { BUILT_IN_PRICING, costOf } from "../src/models/index.ts";
import { startLoopbackServer, type Responder } from "./support/loopback-server.ts";
import { chatStream, openAiError } from "./support/openai-chat-stream.ts";
import { runWireJob } from "./support/wire-job.ts";

const add = tool({
  name: "add",
  description: "Add two numbers.",
  params: z.object({ a: z.number().describe("First."), b: z.number().describe("Second.") }),
  run: ({ a, b }) => a + b,
});

const OPENAI: Partial<AgentOptions> = { tools: [add], metadata: { MODEL: "openai/gpt-5-mini", LLM_TOOLS_SCOPE: "APPLICATION" } };

function runJob(responses: Responder[], agent: Partial<AgentOptions> = {}, models: Partial<ModelOptions> = {}) {
  return runWireJob({ responses, agent: { ...OPENAI, ...agent }, models, message: "Add 2 and 3, then 1 and 2." });
}

const turns = (view: { history: Array<{ kind: string; data: any }> }) => view.history.filter((record) => record.kind === "model-response").map((record) => record.data);
const attempts = (view: { history: Array<{ kind: string; data: any }> }) => view.history.filter((record) => record.kind === "model-attempt").map((record) => record.data);

describe("OpenAI chat completions, through @ai-sdk/openai, by a real job", () => {
  it("streams the conversation and tools, runs tool calls and code, retries 429 (Retry-After) and 500, and counts usage and cost", async () => {
    const { view, requests, delays } = await runJob([
      openAiError(429, "Rate limit reached for gpt-5-mini", "requests", { "retry-after-ms": "20" }),
      chatStream({
        content: ["Adding.\n```ts\nconst small = ", "add(1, 2)\nprint(small)\n```"],
        toolCalls: [{ id: "call_abc", name: "add", arguments: ["{\"a\":2,", "\"b\":3}"] }],
        usage: { prompt: 1200, completion: 40, cached: 1024 },
      }),
      openAiError(500, "The server had an error while processing your request.", "server_error"),
      chatStream({ content: "```ts\nexit(small)\n```", usage: { prompt: 1500, completion: 10, cached: 1280 } }),
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
    assert.equal(first.body.stream, true, "the reply is streamed");
    assert.deepEqual(first.body.stream_options, { include_usage: true });
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
    assert.deepEqual(turns(view).map((turn) => [turn.model, turn.usage, turn.finishReason]), [
      ["openai.chat/gpt-5-mini", { inputTokens: 1200, cachedInputTokens: 1024, outputTokens: 40 }, "tool-calls"],
      ["openai.chat/gpt-5-mini", { inputTokens: 1500, cachedInputTokens: 1280, outputTokens: 10 }, "stop"],
    ]);
    assert.equal(turns(view)[0]!.cost, costOf({ inputTokens: 1200, cachedInputTokens: 1024, outputTokens: 40 }, price));
    assert.deepEqual({ ...view.usage, cost: Number(view.usage.cost!.toFixed(10)) }, {
      inputTokens: 2700, cachedInputTokens: 2304, outputTokens: 50,
      cost: Number(((396 * 0.25 + 2304 * 0.025 + 50 * 2) / 1e6).toFixed(10)),
    });
    assert.deepEqual(attempts(view).map((attempt) => [attempt.turn, attempt.attempt, attempt.error.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT"), attempt.retried, attempt.usage]), [
      [1, 1, "AI_APICallError: Rate limit reached for gpt-5-mini (openai.chat/gpt-5-mini, HTTP 429, http://127.0.0.1:PORT/v1/chat/completions)", true, undefined],
      [2, 1, "AI_APICallError: The server had an error while processing your request. (openai.chat/gpt-5-mini, HTTP 500, http://127.0.0.1:PORT/v1/chat/completions)", true, undefined],
    ], "each failed attempt is in history, before the reply of its turn; an HTTP error spent no tokens");
    const kinds = view.history.map((record) => record.kind);
    assert.ok(kinds.indexOf("model-attempt") < kinds.indexOf("model-response"));
  });

  it("delivers the reply text as it streams, before the reply is complete, to the agent's and the process's onModelText", async () => {
    let heardFirst!: () => void;
    const firstHeard = new Promise<void>((resolve) => (heardFirst = resolve));
    const byAgent: string[] = [];
    const byProcess: Array<[string, string, number, number]> = [];
    const { view } = await runWireJob({
      responses: [chatStream({
        content: ["```ts\nexit(", "'streamed'", ")\n```"],
        // The server sends the rest only once the first piece has been heard: a buffered reply would hang here.
        afterFirstDelta: [{ wait: firstHeard }],
      })],
      agent: { metadata: { MODEL: "openai/gpt-5-mini" }, onModelText: (delta) => void byAgent.push(delta) },
      statek: {
        onModelText: (delta, { job, turn, attempt }) => {
          byProcess.push([job.role, delta, turn, attempt]);
          heardFirst();
        },
      },
    });
    assert.equal(view.exitStatus, "streamed");
    assert.deepEqual(byAgent, ["```ts\nexit(", "'streamed'", ")\n```"]);
    assert.deepEqual(byProcess.map(([role, , turn, attempt]) => [role, turn, attempt]), [["wired", 1, 1], ["wired", 1, 1], ["wired", 1, 1]]);
  });

  it("never runs a reply cut off by the token limit: the model is told, and the next reply runs", async () => {
    const { view, requests } = await runJob([
      chatStream({ content: "Deleting the old rows.\n```ts\nconst gone = 1\nexit('half a plan'", finish: "length", usage: { prompt: 100, completion: 4096 } }),
      chatStream({ content: "```ts\nexit('short')\n```" }),
    ]);
    assert.equal(view.exitStatus, "short", "the truncated exit() never ran");
    assert.equal(view.variables.gone, undefined);
    const [cut] = turns(view);
    assert.deepEqual([cut.finishReason, cut.code, cut.usage.outputTokens], ["length", null, 4096]);
    const notice = "Your reply was cut off at the output token limit (finish reason: length): none of its code ran. " +
      "Reply again with less: shorter code, or the work split over several steps.";
    assert.deepEqual(view.console, [notice]);
    assert.deepEqual(requests[1]!.body.messages.slice(-2), [
      { role: "assistant", content: "Deleting the old rows.\n```ts\nconst gone = 1\nexit('half a plan'" },
      { role: "user", content: notice },
    ]);
  });

  it("tells the model its reply was refused or filtered — not 'no code submitted' — and runs nothing of it", async () => {
    const { view, requests } = await runJob([
      chatStream({ refusal: "I can't help with that." }),
      chatStream({ content: "```ts\nexit('after the refusal')\n```" }),
    ]);
    assert.equal(view.exitStatus, "after the refusal");
    assert.equal(turns(view)[0]!.finishReason, "content-filter");
    assert.deepEqual(view.console, ["Your reply was refused or stopped by the provider's content filter (finish reason: content-filter): none of its code ran."]);
    assert.doesNotMatch(JSON.stringify(requests[1]!.body.messages), /no code submitted/);
  });

  it("keeps a reply whose tool call has malformed arguments: its usage counts, the model reads the error, the job goes on", async () => {
    const { view, requests } = await runJob([
      chatStream({ toolCalls: [{ id: "call_bad", name: "add", arguments: "{\"a\": 2, \"b\": " }], usage: { prompt: 300, completion: 20 } }),
      chatStream({ toolCalls: [{ id: "call_good", name: "add", arguments: "{\"a\":2,\"b\":3}" }], usage: { prompt: 400, completion: 20 } }),
      chatStream({ content: "```ts\nexit('fixed')\n```", usage: { prompt: 500, completion: 10 } }),
    ]);
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, "fixed");
    assert.deepEqual(view.usage, { inputTokens: 1200, cachedInputTokens: 0, outputTokens: 50, cost: view.usage.cost }, "the paid reply counts");
    const [bad] = turns(view);
    assert.deepEqual(bad.toolCalls[0].invalidArguments.text, "{\"a\": 2, \"b\": ");
    const result = requests[1]!.body.messages.find((message: any) => message.role === "tool");
    assert.equal(result.tool_call_id, "call_bad");
    // @ai-sdk/openai sends an error result as { "error": … }.
    assert.match(JSON.parse(result.content).error, /^InvalidToolArgumentsError: the model called tool "add" with arguments that are not a JSON object \(.+\): \{"a": 2, "b": $/);
    assert.deepEqual(requests[1]!.body.messages.at(-2).tool_calls[0].function, { name: "add", arguments: "{}" });
  });

  it("retries a stream that the server cuts off mid-reply, keeping the partial text in the attempt's record", async () => {
    const { view } = await runJob([
      chatStream({ content: ["```ts\nexit('never", " finished"], cut: true }),
      chatStream({ content: "```ts\nexit('whole')\n```" }),
    ]);
    assert.equal(view.exitStatus, "whole");
    assert.deepEqual(attempts(view).map((attempt) => [attempt.error, attempt.text, attempt.usage]), [[
      "IncompleteReplyError: the reply stream ended before the reply was finished (finish reason: interrupted) (openai.chat/gpt-5-mini)",
      "```ts\nexit('never finished",
      { inputTokens: null, cachedInputTokens: null, outputTokens: null },
    ]], "text arrived, so tokens were spent, but the provider never said how many");
    assert.equal(view.usage.unknownCalls, 1);
  });

  it("fails the job, without retrying, on a malformed event in the stream", async () => {
    const { view, requests } = await runJob([{ events: [{ raw: "data: {\"id\": \"chatcmpl-test\", \"choices\": [\n\n" }] }]);
    assert.equal(view.status, "FAILED");
    assert.match(view.error!, /^model call failed: AI_JSONParseError: JSON parsing failed/);
    assert.equal(requests.length, 1);
  });

  it("fails the job after the retries when the server keeps answering 500", async () => {
    const error = openAiError(500, "The server had an error while processing your request.", "server_error");
    const { view, requests, delays } = await runJob([error, error, error]);
    assert.equal(view.status, "FAILED");
    assert.equal(view.error?.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT"), "model call failed after 3 attempts: AI_APICallError: The server had an error while processing your request. (openai.chat/gpt-5-mini, HTTP 500, http://127.0.0.1:PORT/v1/chat/completions)");
    assert.equal(requests.length, 3);
    assert.deepEqual(delays, [5, 10]);
    assert.deepEqual(attempts(view).map((attempt) => [attempt.attempt, attempt.retried]), [[1, true], [2, true], [3, false]]);
  });

  it("abandons a request that hangs past the timeout and retries it; the attempt is in history", async () => {
    const { view, requests } = await runJob(
      [{ hang: true }, chatStream({ content: "```ts\nexit('after the timeout')\n```" })],
      {},
      { timeoutMs: 300 },
    );
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, "after the timeout");
    assert.equal(requests.length, 2);
    assert.deepEqual(attempts(view).map((attempt) => [attempt.error, attempt.timedOut, attempt.usage]), [
      ["TimeoutError: the model did not answer within 300 ms (openai.chat/gpt-5-mini)", true, undefined],
    ]);
  });

  it("cancels a step in flight: the request is abandoned, nothing is committed, the call rejects with the reason", async () => {
    const server = await startLoopbackServer([{ hang: true }, chatStream({ content: "```ts\nexit('resumed')\n```" })]);
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

  it("fails the job naming the variable when the key is missing", async () => {
    const { view, requests } = await runJob([], {}, { env: {} });
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "cannot use the job's MODEL: LoadApiKeyError: MODEL 'openai/gpt-5-mini' needs an API key: set OPENAI_API_KEY");
    assert.equal(requests.length, 0);
  });
});
