import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2StreamPart,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { IncompleteReplyError } from "../errors/incomplete-reply-error.ts";
import { ModelProviderError } from "../errors/model-provider-error.ts";
import { UnsupportedModelVersionError } from "../errors/unsupported-model-version-error.ts";
import { generateReply } from "./generate-reply.ts";
import type { LanguageModel } from "./language-model.ts";
import type { ModelMessage, ModelRequest, ModelUsage } from "./model-request.ts";

const hello: ModelMessage = { role: "user", content: [{ type: "text", text: "Hello" }] };
const baseRequest: ModelRequest = { system: "Be brief.", messages: [hello], tools: [] };
const tool = { name: "lookUp", description: "Look something up.", inputSchema: { type: "object", properties: {} } };

function notCalled(): never {
  throw new Error("doGenerate is not used by generateReply");
}

function streamOf<T>(parts: readonly T[]): ReadableStream<T> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

const v4Usage = (input: number | undefined, cached: number | undefined, output: number | undefined) => ({
  inputTokens: { total: input, noCache: undefined, cacheRead: cached, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const finish = (unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other" | "interrupted" = "stop", raw?: string, usage = v4Usage(100, 40, 7)): LanguageModelV4StreamPart =>
  ({ type: "finish", finishReason: { unified, raw }, usage });

/** A minimal v4 model that streams `parts` and remembers the options it was called with. */
function v4Model(parts: LanguageModelV4StreamPart[], calls: LanguageModelV4CallOptions[] = []): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "v4-model",
    supportedUrls: {},
    doGenerate: notCalled,
    async doStream(options) {
      calls.push(options);
      return { stream: streamOf(parts) };
    },
  };
}

const text = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: "text-start", id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

describe("generateReply", () => {
  it("builds v4 call options: system first, function tools, auto tool choice, abort signal, raw chunks", async () => {
    const calls: LanguageModelV4CallOptions[] = [];
    const controller = new AbortController();
    await generateReply(v4Model([finish()], calls), { ...baseRequest, tools: [tool], abortSignal: controller.signal });
    assert.deepEqual(calls[0], {
      prompt: [{ role: "system", content: "Be brief." }, hello],
      tools: [{ type: "function", ...tool }],
      toolChoice: { type: "auto" },
      abortSignal: controller.signal,
      includeRawChunks: true,
    });
  });

  it("sends no tools or tool choice when there are no tools, and no system message when it is empty", async () => {
    const calls: LanguageModelV4CallOptions[] = [];
    await generateReply(v4Model([finish()], calls), { ...baseRequest, system: "" });
    assert.deepEqual(calls[0], { prompt: [hello], includeRawChunks: true });
  });

  it("reads a v4 stream: text deltas joined and heard as they come, tool calls parsed, reasoning with its merged metadata, usage", async () => {
    const heard: string[] = [];
    const usages: ModelUsage[] = [];
    const reply = await generateReply(v4Model([
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r", providerMetadata: { anthropic: { redacted: false } } },
      { type: "reasoning-delta", id: "r", delta: "Thinking." },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "reasoning-end", id: "r" },
      ...text("t1", "Part one, "),
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com" },
      ...text("t2", "part ", "two."),
      { type: "tool-call", toolCallId: "c1", toolName: "lookUp", input: '{"query":"x"}' },
      { type: "tool-call", toolCallId: "c2", toolName: "noArguments", input: "" },
      { type: "tool-call", toolCallId: "c3", toolName: "web_search", input: "{}", providerExecuted: true },
      finish("tool-calls", "tool_use"),
    ]), baseRequest, { onTextDelta: (delta) => heard.push(delta), onUsage: (usage) => usages.push(usage) });
    assert.deepEqual(reply, {
      text: "Part one, part two.",
      toolCalls: [
        { id: "c1", name: "lookUp", args: { query: "x" } },
        { id: "c2", name: "noArguments", args: {} },
      ],
      reasoning: [{ text: "Thinking.", providerOptions: { anthropic: { redacted: false, signature: "sig" } } }],
      usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 },
      finishReason: "tool-calls",
      rawFinishReason: "tool_use",
      modelName: "test/v4-model",
    });
    assert.deepEqual(heard, ["Part one, ", "part ", "two."]);
    assert.deepEqual(usages, [{ inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 }]);
  });

  it("keeps a tool call whose arguments are not a JSON object, marked with the error, instead of failing the reply", async () => {
    const reply = await generateReply(v4Model([
      { type: "tool-call", toolCallId: "c1", toolName: "lookUp", input: '{"query": "x"' },
      { type: "tool-call", toolCallId: "c2", toolName: "lookUp", input: "[1, 2]" },
      finish("tool-calls"),
    ]), baseRequest);
    assert.equal(reply.toolCalls.length, 2);
    const [broken, array] = reply.toolCalls;
    assert.deepEqual(broken!.args, {});
    assert.equal(broken!.invalidArguments!.text, '{"query": "x"');
    assert.match(broken!.invalidArguments!.error, /^InvalidToolArgumentsError: the model called tool "lookUp" with arguments that are not a JSON object \(.+\): \{"query": "x"$/);
    assert.equal(array!.invalidArguments!.error, 'InvalidToolArgumentsError: the model called tool "lookUp" with arguments that are not a JSON object: [1, 2]');
  });

  it("moves inline <think> blocks to reasoning, even split across deltas; an unclosed one runs to the end", async () => {
    const heard: string[] = [];
    const reply = await generateReply(v4Model([
      ...text("t", "<thi", "nk>Let me run ```ts\nexit('from the thoughts')\n``` no.</th", "ink>Here:\n```ts\nprint(1)\n```", "<think>more"),
      finish(),
    ]), baseRequest, { onTextDelta: (delta) => heard.push(delta) });
    assert.equal(reply.text, "Here:\n```ts\nprint(1)\n```");
    assert.deepEqual(reply.reasoning, [{ text: "Let me run ```ts\nexit('from the thoughts')\n``` no.more" }]);
    assert.equal(heard.join(""), reply.text, "reasoning is never heard as text");

    const open = await generateReply(v4Model([...text("t", "plan: exit()</think>", "Done."), finish()]), baseRequest);
    assert.deepEqual([open.text, open.reasoning], ["Done.", [{ text: "plan: exit()" }]], "a reply that opens inside reasoning");
    const plain = await generateReply(v4Model([...text("t", "a < think > b"), finish()]), baseRequest);
    assert.deepEqual([plain.text, plain.reasoning], ["a < think > b", []]);
  });

  it("keeps the order of parts and their metadata when text parts carry provider metadata (OpenAI Responses items)", async () => {
    const reply = await generateReply(v4Model([
      { type: "reasoning-start", id: "rs_1:0", providerMetadata: { openai: { itemId: "rs_1" } } },
      { type: "reasoning-delta", id: "rs_1:0", delta: "Plan." },
      { type: "reasoning-end", id: "rs_1:0", providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } } },
      { type: "text-start", id: "msg_1", providerMetadata: { openai: { itemId: "msg_1" } } },
      { type: "text-delta", id: "msg_1", delta: "Calling." },
      { type: "text-end", id: "msg_1", providerMetadata: { openai: { itemId: "msg_1", phase: "commentary" } } },
      { type: "tool-call", toolCallId: "call_1", toolName: "lookUp", input: "{}", providerMetadata: { openai: { itemId: "fc_1" } } },
      finish("tool-calls"),
    ]), baseRequest);
    assert.deepEqual(reply.parts, [
      { type: "reasoning", index: 0 },
      { type: "text", text: "Calling.", providerOptions: { openai: { itemId: "msg_1", phase: "commentary" } } },
      { type: "tool-call", index: 0 },
    ]);
    assert.deepEqual(reply.reasoning, [{ text: "Plan.", providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } } }]);
    assert.deepEqual(reply.toolCalls, [{ id: "call_1", name: "lookUp", args: {}, providerOptions: { openai: { itemId: "fc_1" } } }]);
  });

  it("reports usage the provider did not send as unknown (null), never 0", async () => {
    const reply = await generateReply(v4Model([...text("t", "Hi"), finish("stop", undefined, v4Usage(undefined, undefined, undefined))]), baseRequest);
    assert.deepEqual(reply.usage, { inputTokens: null, cachedInputTokens: null, outputTokens: null });
    const inputOnly = await generateReply(v4Model([finish("stop", undefined, v4Usage(12, undefined, undefined))]), baseRequest);
    assert.deepEqual(inputOnly.usage, { inputTokens: 12, cachedInputTokens: 0, outputTokens: null });
  });

  it("throws the provider's error from an error part: retryable for 429 and 5xx codes, as is for an APICallError", async () => {
    await assert.rejects(generateReply(v4Model([...text("t", "Hal"), { type: "error", error: { message: "Rate limit exceeded", code: 429 } }]), baseRequest), (error: unknown) => {
      assert.ok(error instanceof ModelProviderError);
      assert.equal(error.message, "Rate limit exceeded (code 429)");
      assert.equal(error.isRetryable, true);
      assert.equal(error.statusCode, 429);
      return true;
    });
    await assert.rejects(generateReply(v4Model([{ type: "error", error: { error: { message: "Invalid model", code: 400 } } }]), baseRequest), { name: "ModelProviderError", isRetryable: false });
    await assert.rejects(generateReply(v4Model([{ type: "error", error: { message: "Overloaded", type: "overloaded_error" } }]), baseRequest), { isRetryable: true });
    const apiError = new APICallError({ message: "boom", url: "http://127.0.0.1", requestBodyValues: {}, statusCode: 503 });
    await assert.rejects(generateReply(v4Model([{ type: "error", error: apiError }]), baseRequest), (error) => error === apiError);
  });

  it("refuses a stream that ends before the reply is finished, after hearing the usage reported on the way", async () => {
    await assert.rejects(generateReply(v4Model([...text("t", "Hal")]), baseRequest), (error: unknown) => {
      assert.ok(error instanceof IncompleteReplyError);
      assert.equal(error.message, "the reply stream ended without a finish event");
      assert.equal(error.isRetryable, true);
      return true;
    });
    const usages: ModelUsage[] = [];
    const interrupted = v4Model([
      { type: "raw", rawValue: { type: "message_start", message: { usage: { input_tokens: 30, cache_read_input_tokens: 1000, output_tokens: 1 } } } },
      ...text("t", "Hal"),
      finish("interrupted", undefined, v4Usage(undefined, undefined, undefined)),
    ]);
    await assert.rejects(generateReply(interrupted, baseRequest, { onUsage: (usage) => usages.push(usage) }), {
      name: "IncompleteReplyError", message: "the reply stream ended before the reply was finished (finish reason: interrupted)",
    });
    assert.deepEqual(usages.at(-1), { inputTokens: 1030, cachedInputTokens: 1000, outputTokens: 1 });
  });

  it("calls a v3 model with a v3 prompt and reads its usage and finish reason", async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const model: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "old",
      modelId: "v3-model",
      supportedUrls: {},
      doGenerate: notCalled,
      async doStream(options) {
        calls.push(options);
        return {
          stream: streamOf<LanguageModelV3StreamPart>([
            { type: "text-start", id: "0" },
            { type: "text-delta", id: "0", delta: "from v3" },
            { type: "text-end", id: "0" },
            { type: "tool-call", toolCallId: "t", toolName: "lookUp", input: '{"a":1}' },
            {
              type: "finish",
              finishReason: { unified: "tool-calls", raw: "tool_use" },
              usage: {
                inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 3, text: 3, reasoning: undefined },
              },
            },
          ]),
        };
      },
    };
    const image: ModelMessage = {
      role: "user",
      content: [{ type: "file", mediaType: "image/png", data: { type: "url", url: new URL("https://example.com/a.png") } }],
    };
    const custom: ModelMessage = {
      role: "assistant",
      content: [{ type: "text", text: "Seen." }, { type: "custom", kind: "acme.marker" }],
    };
    const reply = await generateReply(model, { ...baseRequest, messages: [image, custom] });
    assert.deepEqual(reply, {
      text: "from v3",
      toolCalls: [{ id: "t", name: "lookUp", args: { a: 1 } }],
      reasoning: [],
      usage: { inputTokens: 50, cachedInputTokens: 0, outputTokens: 3 },
      finishReason: "tool-calls",
      rawFinishReason: "tool_use",
      modelName: "old/v3-model",
    });
    assert.deepEqual(calls[0]?.prompt[1], {
      role: "user",
      content: [{ type: "file", mediaType: "image/png", data: new URL("https://example.com/a.png") }],
    });
    // `custom` parts are new in v4 and mean nothing to a v3 provider.
    assert.deepEqual(calls[0]?.prompt[2], { role: "assistant", content: [{ type: "text", text: "Seen." }] });
  });

  it("calls a v2 model with a v2 prompt and reads its flat usage and string finish reason", async () => {
    const calls: LanguageModelV2CallOptions[] = [];
    const model: LanguageModelV2 = {
      specificationVersion: "v2",
      provider: "older",
      modelId: "v2-model",
      supportedUrls: {},
      doGenerate: notCalled,
      async doStream(options) {
        calls.push(options);
        return {
          stream: streamOf<LanguageModelV2StreamPart>([
            { type: "text-start", id: "0" },
            { type: "text-delta", id: "0", delta: "from v2" },
            { type: "text-end", id: "0" },
            { type: "finish", finishReason: "length", usage: { inputTokens: 30, outputTokens: 5, totalTokens: 35, cachedInputTokens: 10 } },
          ]),
        };
      },
    };
    const messages: ModelMessage[] = [
      hello,
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "chart", input: {} }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "chart",
            output: {
              type: "content",
              value: [{ type: "text", text: "A chart:" }, { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBOR" } }],
            },
          },
          { type: "tool-approval-response", approvalId: "a1", approved: true },
        ],
      },
    ];
    const reply = await generateReply(model, { ...baseRequest, messages, tools: [tool] });
    assert.deepEqual(reply.usage, { inputTokens: 30, cachedInputTokens: 10, outputTokens: 5 });
    assert.equal(reply.finishReason, "length");
    assert.equal(reply.text, "from v2");
    assert.equal(reply.modelName, "older/v2-model");
    assert.deepEqual(calls[0]?.tools, [{ type: "function", ...tool }]);
    assert.deepEqual(calls[0]?.prompt[3], {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: "c1",
        toolName: "chart",
        output: { type: "content", value: [{ type: "text", text: "A chart:" }, { type: "media", data: "iVBOR", mediaType: "image/png" }] },
      }],
    });
  });

  it("rejects other specification versions and values that are not models with UnsupportedModelVersionError", async () => {
    const v1 = { specificationVersion: "v1", provider: "ancient", modelId: "m1", doStream: notCalled } as unknown as LanguageModel;
    await assert.rejects(generateReply(v1, baseRequest), (error: unknown) => {
      assert.ok(error instanceof UnsupportedModelVersionError);
      assert.equal(error.version, "v1");
      assert.equal(error.message, 'unsupported language model specification version "v1" (model ancient/m1); ' +
        "STATEK calls AI SDK language models of specification v2, v3 and v4");
      return true;
    });
    await assert.rejects(generateReply("openai/gpt-5-mini" as unknown as LanguageModel, baseRequest), {
      name: "UnsupportedModelVersionError",
      message: 'expected an AI SDK language model, got a string "openai/gpt-5-mini"; ' +
        "STATEK calls AI SDK language models of specification v2, v3 and v4",
    });
    await assert.rejects(generateReply(null as unknown as LanguageModel, baseRequest), { message: /got null;/ });
    const provider = { specificationVersion: "v4", languageModel: notCalled } as unknown as LanguageModel;
    await assert.rejects(generateReply(provider, baseRequest), { message: /no doStream method \(a provider instead/ });
  });
});
