import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JobView } from "../src/index.ts";
import { chatStream } from "./support/openai-chat-stream.ts";
import { runWireJob } from "./support/wire-job.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const OLLAMA = { metadata: { MODEL: "ollama/qwen3" } };
const OPENROUTER = { metadata: { MODEL: "openrouter/openai/gpt-5-mini" } };

const turns = (view: JobView) => view.history.flatMap((record) => (record.kind === "model-response" ? [record.data] : []));
const attempts = (view: JobView) => view.history.flatMap((record) => (record.kind === "model-attempt" ? [record.data] : []));

/** An OpenRouter error event inside a stream: the HTTP status was already 200 when the upstream failed. */
const streamedError = (code: number, message: string) => ({
  events: [
    { raw: ": OPENROUTER PROCESSING\n\n" },
    { data: { id: "gen-1", object: "chat.completion.chunk", created: 1_750_000_000, model: "openai/gpt-5-mini", error: { code, message }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] } },
  ],
});

/** An OpenRouter error in the body of a 200 answer, after the keep-alive blank space it sends while it waits. */
const bodyError = (code: number, message: string) => ({ status: 200, body: `\n\n   \n${JSON.stringify({ error: { code, message, metadata: { provider_name: "OpenAI" } } })}` });

describe("OpenAI-compatible servers, through @ai-sdk/openai-compatible, by a real job", () => {
  it("reaches a local server (ollama/…) with no key, streaming, and asks it for the usage", async () => {
    const { view, requests } = await runWireJob({ responses: [chatStream({ content: "```ts\nexit(40 + 2)\n```", usage: { prompt: 100, completion: 8 } })], agent: OLLAMA });
    assert.equal(view.exitStatus, 42);
    assert.equal(requests[0]!.path, "/v1/chat/completions");
    assert.equal(requests[0]!.body.model, "qwen3");
    assert.deepEqual([requests[0]!.body.stream, requests[0]!.body.stream_options], [true, { include_usage: true }]);
    assert.equal(requests[0]!.headers.authorization, undefined);
    assert.deepEqual(view.usage, { inputTokens: 100, cachedInputTokens: 0, outputTokens: 8, cost: null });
  });

  it("treats inline <think>…</think> as reasoning: code in it never runs, nor reaches onModelText", async () => {
    const heard: string[] = [];
    const { view } = await runWireJob({
      responses: [chatStream({
        content: ["<think>I could just run\n```ts\nexit('from the thoughts')\n```\nbut I should che", "ck first.</th", "ink>\n```ts\nexit('from the answer')\n```"],
      })],
      agent: { ...OLLAMA, onModelText: (delta) => void heard.push(delta) },
    });
    assert.equal(view.exitStatus, "from the answer");
    const [turn] = turns(view);
    assert.deepEqual(turn!.reasoning, [{ text: "I could just run\n```ts\nexit('from the thoughts')\n```\nbut I should check first." }]);
    assert.equal(turn!.text, "\n```ts\nexit('from the answer')\n```");
    assert.doesNotMatch(heard.join(""), /think|thoughts/);
  });

  it("records usage the server did not report as unknown, not 0; statek show says so, and shows the failed attempt", async () => {
    const directory = mkdtempSync(join(tmpdir(), "statek-usage-"));
    const store = join(directory, "statek.db");
    try {
      let jobId = "";
      const { view } = await runWireJob({
        responses: [
          streamedError(503, "Upstream overloaded"),
          chatStream({ content: "```ts\nprint(1)\n```", usage: null }),
          chatStream({ content: "```ts\nexit()\n```", usage: { prompt: 50, completion: 5 } }),
        ],
        agent: OLLAMA,
        statek: { store },
        before: (_statek, id) => void (jobId = id),
      });
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.deepEqual(turns(view).map((turn) => turn.usage), [
        { inputTokens: null, cachedInputTokens: null, outputTokens: null },
        { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5 },
      ]);
      assert.deepEqual(view.usage, { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5, cost: null, unknownCalls: 1 });
      const shown = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [BIN, "show", jobId, "--store", store], { encoding: "utf8" }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
      });
      assert.match(shown, /\nusage {5}50 input \(0 cached\) · 5 output tokens · usage unknown for 1 model call \(not counted\)\n/);
      assert.match(shown, /── turn 1 · model \(ollama\.chat\/qwen3\) · usage unknown ──/);
      assert.match(shown, /\n {2}✗ model attempt 1 failed after [\d,]+ ms, retried:\n {4}ModelProviderError: Upstream overloaded \(code 503\) \(ollama\.chat\/qwen3, HTTP 503\)\n/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("holds token and cost limits conservatively: unknown usage stops a job that has one, after keeping the reply", async () => {
    const { view } = await runWireJob({
      responses: [chatStream({ content: "```ts\nprint(1)\n```", usage: null })],
      agent: { ...OLLAMA, harness: { maxTokens: 1_000_000 } },
    });
    assert.equal(view.status, "FAILED");
    assert.equal(view.error, "harness limit: maxTokens is set but the provider did not report the usage of 1 model call (model ollama.chat/qwen3), " +
      "so the job's usage is unknown and the limit cannot be held");
    assert.equal(turns(view).length, 1, "the paid reply is kept");
  });

  it("surfaces an error streamed inside a 200 answer (OpenRouter) with the provider's message, and retries it when it is retryable", async () => {
    const { view, delays } = await runWireJob({
      responses: [streamedError(429, "Rate limit exceeded: free-models-per-min"), chatStream({ content: "```ts\nexit('through')\n```" })],
      agent: OPENROUTER,
    });
    assert.equal(view.exitStatus, "through", view.error ?? "");
    assert.deepEqual(delays, [5]);
    assert.deepEqual(attempts(view).map((attempt) => [attempt.error, attempt.retried]), [["ModelProviderError: Rate limit exceeded: free-models-per-min (code 429) (openrouter.chat/openai/gpt-5-mini, HTTP 429)", true]]);
  });

  it("surfaces an error in the body of a 200 answer with the provider's message — not 'Invalid JSON response' — retrying 429 and 5xx", async () => {
    const retried = await runWireJob({
      responses: [bodyError(429, "Rate limit exceeded"), bodyError(502, "Upstream provider error"), chatStream({ content: "```ts\nexit('done')\n```" })],
      agent: OPENROUTER,
    });
    assert.equal(retried.view.exitStatus, "done", retried.view.error ?? "");
    assert.deepEqual(attempts(retried.view).map((attempt) => attempt.error.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")), [
      "AI_APICallError: Rate limit exceeded (openrouter.chat/openai/gpt-5-mini, HTTP 429, http://127.0.0.1:PORT/api/v1/chat/completions)",
      "AI_APICallError: Upstream provider error (openrouter.chat/openai/gpt-5-mini, HTTP 502, http://127.0.0.1:PORT/api/v1/chat/completions)",
    ]);

    const refused = await runWireJob({ responses: [bodyError(400, "openai/gpt-5-mini is not a valid model ID")], agent: OPENROUTER });
    assert.equal(refused.view.status, "FAILED");
    assert.equal(refused.view.error?.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT"), "model call failed: AI_APICallError: openai/gpt-5-mini is not a valid model ID (openrouter.chat/openai/gpt-5-mini, HTTP 400, http://127.0.0.1:PORT/api/v1/chat/completions)");
    assert.equal(refused.requests.length, 1, "a 400 is not retried");
  });
});
