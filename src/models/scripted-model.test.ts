import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, jsonSchema, streamText, tool } from "ai";
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { ScriptExhaustedError } from "../errors/script-exhausted-error.ts";
import { StatekError } from "../errors/statek-error.ts";
import { generateReply } from "./generate-reply.ts";
import type { ModelMessage, ModelRequest } from "./model-request.ts";
import { ScriptedModel, scriptedModel } from "./scripted-model.ts";

const findTool = {
  name: "findEmptySlot",
  description: "Find an available calendar slot.",
  inputSchema: { type: "object", properties: { durationMinutes: { type: "number" } }, required: ["durationMinutes"] },
};

function userText(text: string): ModelMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: "You help with calendars.", messages: [userText("Find me a slot")], tools: [], ...overrides };
}

async function collect(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("scriptedModel", () => {
  it("is a v4 language model with default names", () => {
    const model = scriptedModel([]);
    assert.ok(model instanceof ScriptedModel);
    assert.equal(model.specificationVersion, "v4");
    assert.equal(model.provider, "scripted");
    assert.equal(model.modelId, "scripted-model");
    assert.deepEqual(model.supportedUrls, {});
    const named = scriptedModel([], { provider: "openai", modelId: "gpt-5-mini" });
    assert.equal(`${named.provider}/${named.modelId}`, "openai/gpt-5-mini");
  });

  it("replays string turns through generateReply, with estimated usage", async () => {
    const model = scriptedModel(["First answer.", "Second."]);
    const first = await generateReply(model, request());
    assert.deepEqual(first, {
      text: "First answer.",
      toolCalls: [],
      reasoning: [],
      // "You help with calendars." (24) + "Find me a slot" (14) = 38 characters → 10 tokens; 13 characters → 4.
      usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 4 },
      finishReason: "stop",
      modelName: "scripted/scripted-model",
    });
    assert.equal(model.turnsUsed, 1);
    assert.equal(model.remaining, 1);
    assert.equal((await generateReply(model, request())).text, "Second.");
    assert.equal(model.remaining, 0);
  });

  it("replays tool-call turns with default and explicit ids", async () => {
    const model = scriptedModel([
      "no calls",
      {
        text: "Looking.",
        toolCalls: [
          { name: "findEmptySlot", args: { durationMinutes: 30 } },
          { name: "findEmptySlot", args: { durationMinutes: 60 }, id: "mine" },
        ],
      },
    ]);
    await generateReply(model, request());
    const reply = await generateReply(model, request({ tools: [findTool] }));
    assert.equal(reply.text, "Looking.");
    assert.equal(reply.finishReason, "tool-calls");
    assert.deepEqual(reply.toolCalls, [
      { id: "call-1-0", name: "findEmptySlot", args: { durationMinutes: 30 } },
      { id: "mine", name: "findEmptySlot", args: { durationMinutes: 60 } },
    ]);
  });

  it("returns reasoning and uses the usage a turn gives, estimating only what is missing", async () => {
    const model = scriptedModel([{ reasoning: "Monday is free.", text: "Booked.", usage: { inputTokens: 1200, cachedInputTokens: 1000 } }]);
    const reply = await generateReply(model, request());
    assert.deepEqual(reply.reasoning, [{ text: "Monday is free." }]);
    assert.deepEqual(reply.usage, { inputTokens: 1200, cachedInputTokens: 1000, outputTokens: 2 });
  });

  it("reports the finish reason a turn gives, and leaves out usage given as null (a provider that reports none)", async () => {
    const model = scriptedModel([
      { text: "```ts\nconst a = [", finishReason: "length", usage: { inputTokens: null, outputTokens: null } },
      { toolCalls: [{ name: "t", args: {} }] },
    ]);
    const cut = await generateReply(model, request());
    assert.deepEqual([cut.finishReason, cut.usage], ["length", { inputTokens: null, cachedInputTokens: null, outputTokens: null }]);
    assert.equal((await generateReply(model, request())).finishReason, "tool-calls");
  });

  it("records each request: system separated, messages and tools as received", async () => {
    const model = scriptedModel(["ok"]);
    const messages: ModelMessage[] = [
      userText("Find me a slot"),
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "c1", toolName: "findEmptySlot", input: { durationMinutes: 30 } },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "findEmptySlot", output: { type: "json", value: { start: "09:00" } } }],
      },
    ];
    await generateReply(model, request({ messages, tools: [findTool] }));
    assert.deepEqual(model.requests, [{ system: "You help with calendars.", messages, tools: [findTool] }]);
  });

  it("joins several system messages and keeps only function tools", async () => {
    const model = scriptedModel(["ok"]);
    await model.doGenerate({
      prompt: [
        { role: "system", content: "Part one." },
        userText("hi"),
        { role: "system", content: "Part two." },
      ],
      tools: [
        { type: "function", name: "plain", inputSchema: { type: "object" } },
        { type: "provider", id: "openai.web_search", name: "web_search", args: {} },
      ],
    });
    assert.equal(model.requests[0]?.system, "Part one.\n\nPart two.");
    assert.deepEqual(model.requests[0]?.messages, [userText("hi")]);
    assert.deepEqual(model.requests[0]?.tools, [{ name: "plain", description: "", inputSchema: { type: "object" } }]);
  });

  it("records a deep copy, so later changes by the caller do not show", async () => {
    const model = scriptedModel(["ok"]);
    const url = new URL("https://example.com/a.png");
    const message: ModelMessage = {
      role: "user",
      content: [{ type: "text", text: "before" }, { type: "file", mediaType: "image/png", data: { type: "url", url } }],
    };
    const tools = [structuredClone(findTool)];
    await generateReply(model, request({ messages: [message], tools }));
    (message.content[0] as { text: string }).text = "after";
    message.content.push({ type: "text", text: "added" });
    url.pathname = "/b.png";
    tools[0]!.inputSchema.required.push("more");
    const recorded = model.requests[0]!;
    assert.deepEqual(recorded.messages[0]?.content[0], { type: "text", text: "before" });
    assert.equal(recorded.messages[0]?.content.length, 2);
    const file = recorded.messages[0]?.content[1] as { data: { url: URL } };
    assert.equal(file.data.url.href, "https://example.com/a.png");
    assert.deepEqual(recorded.tools[0]?.inputSchema.required, ["durationMinutes"]);
  });

  it("records a message frozen throughout once, sharing its frozen copy between requests", async () => {
    const model = scriptedModel(["one", "two"]);
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === "object" && value !== null) for (const member of Object.values(value)) deepFreeze(member);
      return Object.freeze(value);
    };
    const kept = deepFreeze(userText("kept between requests"));
    const open = userText("open");
    // Frozen on the outside only: a member can still change, so it is copied each time.
    const shallow = Object.freeze({ role: "user" as const, content: [{ type: "text" as const, text: "shallow" }] });
    await generateReply(model, request({ messages: [kept, open, shallow] }));
    (open.content[0] as { text: string }).text = "changed";
    (shallow.content[0] as { text: string }).text = "changed too";
    await generateReply(model, request({ messages: [kept, open, shallow] }));
    const [first, second] = model.requests;
    assert.equal(second!.messages[0], first!.messages[0], "the settled message is copied once");
    assert.notEqual(first!.messages[0], kept, "a copy, not the caller's object");
    assert.ok(Object.isFrozen(first!.messages[0]) && Object.isFrozen(first!.messages[0]!.content[0]));
    assert.deepEqual(first!.messages.map((message) => (message.content[0] as { text: string }).text), ["kept between requests", "open", "shallow"]);
    assert.deepEqual(second!.messages.map((message) => (message.content[0] as { text: string }).text), ["kept between requests", "changed", "changed too"]);
    assert.ok(!Object.isFrozen(first!.messages[1]), "a copy of a value that can change is the recorder's own");
  });

  it("copies a frozen value with a getter afresh each time (it may answer differently)", async () => {
    const model = scriptedModel(["one", "two"]);
    let text = "first";
    const part = Object.freeze({ type: "text" as const, get text() { return text; } });
    const content = [part];
    const message: ModelMessage = { role: "user", content };
    Object.freeze(content);
    Object.freeze(message);
    await generateReply(model, request({ messages: [message] }));
    text = "second";
    await generateReply(model, request({ messages: [message] }));
    assert.deepEqual(model.requests.map((recorded) => (recorded.messages[0]!.content[0] as { text: string }).text), ["first", "second"]);
  });

  it("throws ScriptExhaustedError naming the turn count and the request number", async () => {
    const model = scriptedModel(["one", "two"]);
    await generateReply(model, request());
    await generateReply(model, request());
    await assert.rejects(generateReply(model, request()), (error: unknown) => {
      assert.ok(error instanceof ScriptExhaustedError);
      assert.ok(StatekError.isInstance(error));
      assert.equal(error.name, "ScriptExhaustedError");
      assert.equal(error.message, "scriptedModel: the script has 2 turns and a 3rd request was made; add turns to the script (each job replays it from its first turn), or use a real model");
      assert.equal(error.turnCount, 2);
      assert.equal(error.requestNumber, 3);
      return true;
    });
    assert.equal(model.requests.length, 3, "the failing request is recorded too");
    assert.equal(model.turnsUsed, 2);
    const single = scriptedModel(["only"]);
    await single.doGenerate({ prompt: [] });
    await assert.rejects(single.doStream({ prompt: [] }), {
      message: "scriptedModel: the script has 1 turn and a 2nd request was made; add turns to the script (each job replays it from its first turn), or use a real model",
    });
  });

  it("honours an aborted signal without using a turn", async () => {
    const model = scriptedModel(["ok"]);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(generateReply(model, request({ abortSignal: controller.signal })), { message: "stop" });
    assert.equal(model.turnsUsed, 0);
    assert.equal(model.requests.length, 0);
  });

  it("streams the parts a provider would send", async () => {
    const model = scriptedModel([{ reasoning: "think", text: "Hi", toolCalls: [{ name: "t", args: { a: 1 } }] }]);
    const { stream } = await model.doStream({ prompt: [userText("hello")] } satisfies LanguageModelV4CallOptions);
    const parts = await collect(stream);
    assert.deepEqual(parts.map((part) => part.type), [
      "stream-start", "response-metadata",
      "reasoning-start", "reasoning-delta", "reasoning-end",
      "text-start", "text-delta", "text-end",
      "tool-input-start", "tool-input-delta", "tool-input-end", "tool-call",
      "finish",
    ]);
    assert.deepEqual(parts[11], { type: "tool-call", toolCallId: "call-0-0", toolName: "t", input: '{"a":1}' });
    const finish = parts[12] as Extract<LanguageModelV4StreamPart, { type: "finish" }>;
    assert.equal(finish.finishReason.unified, "tool-calls");
    assert.equal(finish.usage.inputTokens.total, 2);
    assert.equal(finish.usage.outputTokens.total, 1);
  });
});

describe("scriptedModel through the ai package", () => {
  it("answers generateText, including a tool call for a tool without execute", async () => {
    const model = scriptedModel([
      "Hello there.",
      { text: "Let me look.", toolCalls: [{ name: "findEmptySlot", args: { durationMinutes: 30 } }] },
    ]);
    const first = await generateText({ model, instructions: "Be brief.", prompt: "Hi" });
    assert.equal(first.text, "Hello there.");
    assert.equal(first.finishReason, "stop");
    assert.equal(first.usage.inputTokens, 3);
    assert.deepEqual(model.requests[0], { system: "Be brief.", messages: [userText("Hi")], tools: [] });

    const second = await generateText({
      model,
      instructions: "Be brief.",
      messages: [{ role: "user", content: "Find a slot" }],
      tools: {
        findEmptySlot: tool({ description: findTool.description, inputSchema: jsonSchema(findTool.inputSchema as never) }),
      },
    });
    assert.equal(second.finishReason, "tool-calls");
    assert.equal(second.text, "Let me look.");
    assert.equal(second.toolCalls.length, 1);
    assert.equal(second.toolCalls[0]?.toolName, "findEmptySlot");
    assert.equal(second.toolCalls[0]?.toolCallId, "call-1-0");
    assert.deepEqual(second.toolCalls[0]?.input, { durationMinutes: 30 });
    assert.deepEqual(model.requests[1]?.tools, [findTool]);
  });

  it("lets generateText reject with ScriptExhaustedError itself, unwrapped", async () => {
    await assert.rejects(generateText({ model: scriptedModel([]), prompt: "Hi" }), {
      name: "ScriptExhaustedError",
      message: "scriptedModel: the script has 0 turns and a 1st request was made; add turns to the script (each job replays it from its first turn), or use a real model",
    });
  });

  it("answers streamText", async () => {
    const model = scriptedModel([{ reasoning: "hmm", text: "Streamed reply." }]);
    const result = streamText({ model, prompt: "Stream it" });
    assert.equal(await result.text, "Streamed reply.");
    assert.equal(await result.reasoningText, "hmm");
    assert.equal(await result.finishReason, "stop");
    assert.equal(model.requests[0]?.messages.length, 1);
  });
});
