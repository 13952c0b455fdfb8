import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, Statek, scriptedModel, type AgentOptions, type ModelOptions } from "../src/index.ts";
import { anthropicError, messageStream } from "./support/anthropic-stream.ts";
import { startLoopbackServer, type Responder } from "./support/loopback-server.ts";

async function runJob(responses: Responder[], agent: Partial<AgentOptions> = {}, models: Partial<ModelOptions> = {}) {
  const server = await startLoopbackServer(responses);
  const delays: number[] = [];
  const sent: string[] = [];
  const definition = new Agent({
    role: "claude",
    metadata: { MODEL: "anthropic/claude-sonnet-4-5", CHAT_STYLE: "DIRECT" },
    onMessage: (body) => void sent.push(body),
    ...agent,
  });
  const statek = await Statek.open({
    store: ":memory:",
    agents: [definition],
    models: {
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: `${server.url}/v1` },
      initialDelayMs: 5,
      sleep: async (ms) => void delays.push(ms),
      ...models,
    },
  });
  try {
    const { id } = await statek.submitJob(definition, { message: "How much is 6 * 7?" });
    const view = await statek.runJob(id);
    return { view, requests: server.requests, delays, sent };
  } finally {
    await statek.close();
    await server.close();
  }
}

describe("Anthropic Messages, through @ai-sdk/anthropic, by a real job", () => {
  it("runs ts_cli tool calls, replays thinking with its signature, retries 429 (Retry-After) and 500, counts cached tokens and cost", async () => {
    const { view, requests, delays, sent } = await runJob([
      anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "retry-after": "2" }),
      messageStream({
        blocks: [
          { type: "thinking", thinking: "The user wants 6 * 7; compute it.", signature: "sig-abc" },
          { type: "text", text: ["Let me ", "compute that."] },
          { type: "tool_use", id: "toolu_01", name: "ts_cli", input: ["{\"code\": \"const product = 6 * 7", "\\nprint(product)\"}"] },
        ],
        usage: { input: 40, output: 60, cacheRead: 1000, cacheWrite: 200 },
      }),
      anthropicError(500, "api_error", "Internal server error"),
      messageStream({ blocks: [{ type: "text", text: "6 * 7 is 42." }], usage: { input: 80, output: 12, cacheRead: 1200 } }),
    ]);
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.deepEqual(sent, ["Let me compute that.", "6 * 7 is 42."]);
    assert.equal(view.variables.product, 42);
    assert.deepEqual(delays, [2000, 5]);
    assert.equal(requests.length, 4);

    const first = requests[0]!;
    assert.equal(first.path, "/v1/messages");
    assert.equal(first.headers["x-api-key"], "sk-ant-test");
    assert.equal(first.headers["anthropic-version"], "2023-06-01");
    assert.equal(first.body.model, "claude-sonnet-4-5");
    assert.equal(first.body.stream, true, "the reply is streamed");
    assert.match(JSON.stringify(first.body.system), /durable TypeScript workspace. You are talking with the user: your text is sent to them. To run TypeScript, call the ts_cli tool/, "the default prompt explains the DIRECT style");
    assert.deepEqual(first.body.messages, [{ role: "user", content: [{ type: "text", text: "How much is 6 * 7?" }] }]);
    assert.deepEqual(first.body.tools.map((entry: any) => entry.name), ["ts_cli"]);
    assert.deepEqual(first.body.tools[0].input_schema.required, ["code"]);

    assert.deepEqual(requests[3]!.body.messages.slice(1), [
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "The user wants 6 * 7; compute it.", signature: "sig-abc" },
          { type: "text", text: "Let me compute that." },
          { type: "tool_use", id: "toolu_01", name: "ts_cli", input: { code: "const product = 6 * 7\nprint(product)" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "42" }] },
    ]);

    const turns = view.history.flatMap((record) => (record.kind === "model-response" ? [record.data] : []));
    assert.deepEqual(turns.map((turn) => turn.usage), [
      { inputTokens: 1240, cachedInputTokens: 1000, outputTokens: 60 },
      { inputTokens: 1280, cachedInputTokens: 1200, outputTokens: 12 },
    ]);
    assert.equal(turns[0]!.reasoning[0]!.text, "The user wants 6 * 7; compute it.");
    // claude-sonnet-4-5: $3 input, $0.30 cached, $15 output per million tokens; cache writes priced as input.
    assert.equal(Number(view.usage.cost!.toFixed(10)), Number(((240 * 3 + 1000 * 0.3 + 60 * 15 + 80 * 3 + 1200 * 0.3 + 12 * 15) / 1e6).toFixed(10)));
  });

  it("replays thinking only to the provider that produced it", async () => {
    const server = await startLoopbackServer([
      messageStream({
        blocks: [
          { type: "thinking", thinking: "Plan.", signature: "sig-1" },
          { type: "tool_use", id: "toolu_01", name: "ts_cli", input: "{\"code\": \"print(1)\"}" },
        ],
        usage: { input: 10, output: 5 },
      }),
    ]);
    const claude = new Agent({ role: "switching", metadata: { MODEL: "anthropic/claude-haiku-4-5", CHAT_STYLE: "DIRECT" } });
    const statek = await Statek.open({ store: ":memory:", agents: [claude], models: { env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: `${server.url}/v1` } } });
    const { id } = await statek.submitJob(claude, { message: "Go." });
    await statek.step(id);
    // The application redeploys the agent with another provider's model (a new process on the same store).
    const other = scriptedModel(["Done."], { provider: "openai.chat", modelId: "gpt-5-mini" });
    const redeployed = await Statek.open({ store: statek.store, agents: [new Agent({ role: "switching", model: other, metadata: { CHAT_STYLE: "DIRECT" } })] });
    const view = await redeployed.runJob(id);
    await redeployed.close();
    await statek.close();
    await server.close();
    assert.equal(view.status, "DONE");
    assert.deepEqual(other.requests[0]!.messages[1], {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "toolu_01", toolName: "ts_cli", input: { code: "print(1)" } }],
    }, "no reasoning part: the signature means nothing to another provider");
  });

  it("records the usage a slow reply reported before it timed out, and the retry's; both count in the job", async () => {
    const { view, requests } = await runJob([
      // The reply starts (message_start reports the input tokens), says a little, then stalls.
      messageStream({ blocks: [{ type: "text", text: "Let me think about th" }], usage: { input: 900, output: 0, cacheRead: 100 }, stall: true }),
      messageStream({ blocks: [{ type: "text", text: "It is 42." }], usage: { input: 1000, output: 6 } }),
    ], {}, { timeoutMs: 300 });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(requests.length, 2);
    const attempts = view.history.filter((record) => record.kind === "model-attempt").map((record) => record.data);
    assert.deepEqual(attempts.map((attempt) => [attempt.error, attempt.timedOut, attempt.retried, attempt.usage, attempt.text]), [[
      "TimeoutError: the model did not answer within 300 ms (anthropic.messages/claude-sonnet-4-5)", true, true,
      { inputTokens: 1000, cachedInputTokens: 100, outputTokens: 1 }, "Let me think about th",
    ]]);
    assert.ok(typeof attempts[0]!.cost === "number" && attempts[0]!.cost > 0, "what the abandoned reply reported is priced");
    assert.deepEqual([view.usage.inputTokens, view.usage.cachedInputTokens, view.usage.outputTokens], [2000, 100, 7]);
  });

  it("fails the job, without retrying, on a malformed event in the stream", async () => {
    const { view, requests } = await runJob([{ events: [{ raw: "event: message_start\ndata: {\"type\": \"message_start\", \"message\": [\n\n" }] }]);
    assert.equal(view.status, "FAILED");
    // The package reports its own words for it; what matters is that the job says so and does not retry.
    assert.match(view.error!, /^model call failed: /);
    assert.equal(requests.length, 1);
  });

  it("fails the job naming the package's error for a request the API rejects (400, not retried)", async () => {
    const { view, requests } = await runJob([anthropicError(400, "invalid_request_error", "messages: roles must alternate")]);
    assert.equal(view.status, "FAILED");
    assert.equal(view.error?.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT"), "model call failed: AI_APICallError: messages: roles must alternate (anthropic.messages/claude-sonnet-4-5, HTTP 400, http://127.0.0.1:PORT/v1/messages)");
    assert.equal(requests.length, 1);
  });
});
