import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { tool, type JobView } from "../src/index.ts";
import type { Responder } from "./support/loopback-server.ts";
import { responsesRejection, responsesStream, type ResponsesReply } from "./support/openai-responses-stream.ts";
import { runWireJob } from "./support/wire-job.ts";

const lookUp = tool({
  name: "lookUp",
  description: "Look a word up.",
  params: z.object({ word: z.string().describe("The word.") }),
  run: ({ word }) => `${word}: a greeting`,
});

/** A Responses API server that checks each request's input before it answers. */
const checked = (reply: ResponsesReply, id?: string): Responder => (request) => responsesRejection(request.body) ?? responsesStream(reply, id);

const turns = (view: JobView) => view.history.flatMap((record) => (record.kind === "model-response" ? [record.data] : []));

describe("OpenAI Responses API (MODEL openai.responses/…), through @ai-sdk/openai, by a real job", () => {
  it("streams from /responses and references each reasoning item together with the message that followed it", async () => {
    const heard: string[] = [];
    const { view, requests } = await runWireJob({
      responses: [
        checked({ items: [
          { type: "reasoning", id: "rs_1", summary: "Compute first." },
          { type: "message", id: "msg_1", text: ["Computing.\n```ts\nconst answer = 6 * 7\n", "print(answer)\n```"] },
        ], usage: { input: 900, output: 120, cached: 800, reasoning: 64 } }, "resp_1"),
        checked({ items: [
          { type: "reasoning", id: "rs_2", summary: "Done." },
          { type: "message", id: "msg_2", text: "```ts\nexit(answer)\n```" },
        ] }, "resp_2"),
      ],
      agent: { metadata: { MODEL: "openai.responses/gpt-5-mini" }, onModelText: (delta) => void heard.push(delta) },
      message: "What is 6 * 7?",
    });
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, 42);
    assert.equal(requests[0]!.path, "/v1/responses");
    assert.equal(requests[0]!.body.stream, true);
    assert.deepEqual(heard.slice(0, 2), ["Computing.\n```ts\nconst answer = 6 * 7\n", "print(answer)\n```"]);
    assert.deepEqual(requests[1]!.body.input.slice(1), [
      { role: "user", content: [{ type: "input_text", text: "What is 6 * 7?" }] },
      { type: "item_reference", id: "rs_1" },
      { type: "item_reference", id: "msg_1" },
      { role: "user", content: [{ type: "input_text", text: "42" }] },
    ]);
    const [first] = turns(view);
    assert.equal(first!.model, "openai.responses/gpt-5-mini");
    assert.deepEqual(first!.usage, { inputTokens: 900, cachedInputTokens: 800, outputTokens: 120 });
    assert.ok(typeof first!.cost === "number", "priced as openai/gpt-5-mini");
    assert.deepEqual(first!.parts, [
      { type: "reasoning", index: 0 },
      { type: "text", text: "Computing.\n```ts\nconst answer = 6 * 7\nprint(answer)\n```", providerOptions: { openai: { itemId: "msg_1" } } },
    ]);
  });

  it("replays a reasoning item followed by a function call, and the call's result, consistently", async () => {
    const { view, requests } = await runWireJob({
      responses: [
        checked({ items: [
          { type: "reasoning", id: "rs_1", summary: "Look it up." },
          { type: "function_call", id: "fc_1", callId: "call_1", name: "lookUp", arguments: "{\"word\":\"hello\"}" },
        ] }),
        checked({ items: [{ type: "reasoning", id: "rs_2", summary: "Answer." }, { type: "message", id: "msg_2", text: "```ts\nexit('looked up')\n```" }] }),
      ],
      agent: { tools: [lookUp], metadata: { MODEL: "openai.responses/gpt-5-mini", LLM_TOOLS_SCOPE: "APPLICATION" } },
      message: "What does hello mean?",
    });
    assert.equal(view.exitStatus, "looked up", view.error ?? "");
    assert.deepEqual(requests[1]!.body.input.slice(2), [
      { type: "item_reference", id: "rs_1" },
      { type: "function_call", call_id: "call_1", name: "lookUp", arguments: "{\"word\":\"hello\"}" },
      { type: "function_call_output", call_id: "call_1", output: "hello: a greeting" },
    ]);
    assert.deepEqual(turns(view)[0]!.toolCalls[0]!.providerOptions, { openai: { itemId: "fc_1" } });
  });

  it("records an incomplete response (max_output_tokens) as cut off: nothing of it runs", async () => {
    const { view } = await runWireJob({
      responses: [
        checked({ items: [{ type: "message", id: "msg_1", text: "```ts\nexit('half" }], incomplete: "max_output_tokens" }),
        checked({ items: [{ type: "message", id: "msg_2", text: "```ts\nexit('whole')\n```" }] }),
      ],
      agent: { metadata: { MODEL: "openai.responses/gpt-5-mini" } },
    });
    assert.equal(view.exitStatus, "whole");
    assert.deepEqual([turns(view)[0]!.finishReason, turns(view)[0]!.rawFinishReason, turns(view)[0]!.code], ["length", "max_output_tokens", null]);
  });
});
