/**
 * Model failures as an operator reads them, through real provider packages against loopback servers speaking
 * each provider's wire format: the job's error and each failed attempt name the provider/model, the HTTP
 * status and the URL (never a key); a flat error body keeps the server's message; the spending limit is
 * checked before every retry; a prompt the provider blocks fails the turn with the provider's reason, at once.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chatStream, openAiError } from "./support/openai-chat-stream.ts";
import type { StreamItem } from "./support/loopback-server.ts";
import { runWireJob } from "./support/wire-job.ts";

const attemptsOf = (view: { history: Array<{ kind: string; data: any }> }) => view.history.filter((record) => record.kind === "model-attempt").map((record) => record.data);

describe("model errors name what failed", () => {
  it("a 503 that fails for good names the provider/model, the status and the URL, without the key", async () => {
    const overloaded = openAiError(503, "The engine is currently overloaded, please try again later", "server_error");
    const { view, requests } = await runWireJob({
      responses: [overloaded, overloaded, overloaded],
      agent: { metadata: { MODEL: "openrouter/acme/large-1" } },
      models: { maxRetries: 2 },
      message: "Hi",
    });
    assert.equal(requests.length, 3);
    assert.equal(view.status, "FAILED");
    const named = /The engine is currently overloaded, please try again later \(openrouter\.chat\/acme\/large-1, HTTP 503, http:\/\/127\.0\.0\.1:\d+\/api\/v1\/chat\/completions\)/;
    assert.match(view.error!, /^model call failed after 3 attempts: AI_APICallError: /);
    assert.match(view.error!, named);
    for (const attempt of attemptsOf(view)) assert.match(attempt.error, named);
    assert.doesNotMatch(JSON.stringify(view), /sk-or-test/);
  });

  it("a flat error body (vLLM's) keeps the server's message instead of 'Bad Request'", async () => {
    const message = "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.";
    const { view } = await runWireJob({
      responses: [{ status: 400, body: { object: "error", message, type: "BadRequestError", param: null, code: 400 } }],
      agent: { metadata: { MODEL: "ollama/qwen3" } },
      message: "Hi",
    });
    assert.equal(view.status, "FAILED");
    assert.ok(view.error!.includes(message), view.error!);
    assert.match(view.error!, /\(ollama\.chat\/qwen3, HTTP 400, http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\)/);
  });
});

describe("retries and limits", () => {
  it("checks maxCost before every retry: stalled streams whose spending cannot be counted are not retried", async () => {
    const stalled = { ...chatStream({ content: ["Let me think about this at great length"], cut: true }), stallAfterEvents: true };
    const { view, requests } = await runWireJob({
      responses: [stalled, stalled, stalled, stalled],
      agent: { metadata: { MODEL: "ollama/qwen3" }, harness: { maxCost: 0.1 } },
      models: { maxRetries: 3, timeoutMs: 300 },
      message: "Hi",
    });
    assert.equal(requests.length, 1, "no retry once the limit cannot be held");
    assert.equal(view.status, "FAILED");
    assert.match(view.error!, /^model call failed: TimeoutError: the model did not answer within 300 ms \(ollama\.chat\/qwen3\) \(harness limit: maxCost is set but the provider did not report the usage of 1 model call/);
    assert.deepEqual(attemptsOf(view).map((attempt) => attempt.retried), [false]);
  });

  it("a prompt Gemini blocks (promptFeedback.blockReason) fails the turn with the reason, without retrying", async () => {
    const blocked: StreamItem[] = [{ data: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 }, modelVersion: "gemini-2.5-flash" } }];
    const { view, requests } = await runWireJob({
      responses: [{ events: blocked }, { events: blocked }, { events: blocked }],
      agent: { metadata: { MODEL: "google/gemini-2.5-flash" } },
      message: "Hi",
    });
    assert.equal(requests.length, 1);
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "model call failed: PromptBlockedError: the provider blocked the prompt (blockReason PROHIBITED_CONTENT) (google.generative-ai/gemini-2.5-flash)");
  });
});
