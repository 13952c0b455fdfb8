import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
} from "@ai-sdk/provider";
import { InvalidToolArgumentsError } from "../errors/invalid-tool-arguments-error.ts";
import { UnsupportedModelVersionError } from "../errors/unsupported-model-version-error.ts";
import { generateReply } from "./generate-reply.ts";
import type { LanguageModel } from "./language-model.ts";
import type { ModelMessage, ModelRequest } from "./model-request.ts";

const hello: ModelMessage = { role: "user", content: [{ type: "text", text: "Hello" }] };
const baseRequest: ModelRequest = { system: "Be brief.", messages: [hello], tools: [] };
const tool = { name: "lookUp", description: "Look something up.", inputSchema: { type: "object", properties: {} } };

function notCalled(): never {
  throw new Error("doStream is not used by generateReply");
}

/** A minimal v4 model that returns `content` and remembers the options it was called with. */
function v4Model(content: LanguageModelV4Content[], calls: LanguageModelV4CallOptions[] = []): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "v4-model",
    supportedUrls: {},
    async doGenerate(options) {
      calls.push(options);
      return {
        content,
        finishReason: { unified: "stop", raw: "end_turn" },
        usage: {
          inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: undefined },
          outputTokens: { total: 7, text: 7, reasoning: undefined },
        },
        warnings: [],
      };
    },
    doStream: notCalled,
  };
}

describe("generateReply", () => {
  it("builds v4 call options: system first, function tools, auto tool choice, abort signal", async () => {
    const calls: LanguageModelV4CallOptions[] = [];
    const controller = new AbortController();
    await generateReply(v4Model([], calls), { ...baseRequest, tools: [tool], abortSignal: controller.signal });
    assert.deepEqual(calls[0], {
      prompt: [{ role: "system", content: "Be brief." }, hello],
      tools: [{ type: "function", ...tool }],
      toolChoice: { type: "auto" },
      abortSignal: controller.signal,
    });
  });

  it("sends no tools or tool choice when there are no tools, and no system message when it is empty", async () => {
    const calls: LanguageModelV4CallOptions[] = [];
    await generateReply(v4Model([], calls), { ...baseRequest, system: "" });
    assert.deepEqual(calls[0], { prompt: [hello] });
  });

  it("normalises a v4 result: text joined, tool calls parsed, reasoning with its metadata, usage", async () => {
    const reply = await generateReply(v4Model([
      { type: "reasoning", text: "Thinking.", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "text", text: "Part one, " },
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com" },
      { type: "text", text: "part two." },
      { type: "tool-call", toolCallId: "c1", toolName: "lookUp", input: '{"query":"x"}' },
      { type: "tool-call", toolCallId: "c2", toolName: "noArguments", input: "" },
      { type: "tool-call", toolCallId: "c3", toolName: "web_search", input: "{}", providerExecuted: true },
    ]), baseRequest);
    assert.deepEqual(reply, {
      text: "Part one, part two.",
      toolCalls: [
        { id: "c1", name: "lookUp", args: { query: "x" } },
        { id: "c2", name: "noArguments", args: {} },
      ],
      reasoning: [{ text: "Thinking.", providerOptions: { anthropic: { signature: "sig" } } }],
      usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 7 },
      finishReason: "stop",
      modelName: "test/v4-model",
    });
  });

  it("rejects malformed tool-call JSON with InvalidToolArgumentsError naming the tool and quoting the text", async () => {
    const model = v4Model([{ type: "tool-call", toolCallId: "c1", toolName: "lookUp", input: '{"query": "x"' }]);
    await assert.rejects(generateReply(model, baseRequest), (error: unknown) => {
      assert.ok(error instanceof InvalidToolArgumentsError);
      assert.equal(error.name, "InvalidToolArgumentsError");
      assert.equal(error.toolName, "lookUp");
      assert.equal(error.toolCallId, "c1");
      assert.equal(error.rawArguments, '{"query": "x"');
      assert.match(error.message, /^the model called tool "lookUp" with arguments that are not a JSON object \(.+\): \{"query": "x"$/);
      assert.ok(error.cause instanceof SyntaxError);
      return true;
    });
    const array = v4Model([{ type: "tool-call", toolCallId: "c2", toolName: "lookUp", input: "[1, 2]" }]);
    await assert.rejects(generateReply(array, baseRequest), {
      name: "InvalidToolArgumentsError",
      message: 'the model called tool "lookUp" with arguments that are not a JSON object: [1, 2]',
    });
  });

  it("calls a v3 model with a v3 prompt and reads its usage and finish reason", async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const model: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "old",
      modelId: "v3-model",
      supportedUrls: {},
      async doGenerate(options) {
        calls.push(options);
        return {
          content: [{ type: "text", text: "from v3" }, { type: "tool-call", toolCallId: "t", toolName: "lookUp", input: '{"a":1}' }],
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage: {
            inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
          warnings: [],
        };
      },
      doStream: notCalled,
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
      usage: { inputTokens: 50, cachedInputTokens: 0, outputTokens: 0 },
      finishReason: "tool-calls",
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
      async doGenerate(options) {
        calls.push(options);
        return {
          content: [{ type: "text", text: "from v2" }],
          finishReason: "length",
          usage: { inputTokens: 30, outputTokens: 5, totalTokens: 35, cachedInputTokens: 10 },
          warnings: [],
        };
      },
      doStream: notCalled,
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
    const v1 = { specificationVersion: "v1", provider: "ancient", modelId: "m1", doGenerate: notCalled } as unknown as LanguageModel;
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
    await assert.rejects(generateReply(provider, baseRequest), { message: /no doGenerate method \(a provider instead/ });
  });
});
