import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ModelMessage } from "../../models/model-request.ts";
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import { CHAT_STYLES } from "../../tools/chat-style.ts";
import { buildMessages, KICKOFF_MESSAGE, MessageBuilder, type BuildMessagesOptions } from "./build-messages.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData, ModelResponseRecord } from "../history/history.ts";
import { historyRecord } from "../history/history-codec.ts";
import { TS_CLI } from "../../agents/chat-styles/ts-cli-tool.ts";

const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 };

function response(turn: number, text: string, fields: Partial<ModelResponseRecord> = {}): ModelResponseRecord {
  return { turn, text, code: null, toolCalls: [], reasoning: [], usage, model: "openai/gpt-5-mini", finishReason: "stop", ...fields };
}

function formal(callId: string, name: string, fields: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return { callId, name, args: "{}", origin: "formal", durationMs: 1, ...fields };
}

/**
 * A job's history with every kind of record the conversation shows: warmup blocks (one hidden), replies with code,
 * formal tool calls (one failed after printing, one never run), reasoning from this provider and another, replies
 * replayed part by part, empty replies, console output of every stream, user messages inside and outside a window,
 * post-processor notes and vetoes, approvals, children that ended, and records the model never sees.
 */
function corpus(): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  const add = <K extends HistoryKind>(kind: K, data: HistoryRecordData[K]) => records.push(historyRecord(records.length, kind, 1_000 + records.length, data));
  add("submitted", { vars: [{ name: "user", type: "User" }], params: {}, warmup: [{ code: "setup()" }, { code: "secret()", hidden: true }] });
  add("user-message", { text: "Book me a slot", inbox: 1 });
  add("warmup", { block: 0, code: "setup()", hidden: false });
  add("console", { stream: "out", text: "ready" });
  add("warmup", { block: 1, code: "secret()", hidden: true });
  add("console", { stream: "out", text: "hidden output" });
  add("model-attempt", { turn: 1, attempt: 1, error: "APICallError: busy", retried: true, durationMs: 3, model: "openai/gpt-5-mini" });
  add("model-response", response(1, "Looking.\n```ts\nconst a = 1\na\n```", { code: "const a = 1\na", reasoning: [{ text: "think", providerOptions: { openai: { itemId: "r1" } } }] }));
  add("console", { stream: "echo", text: "1" });
  add("user-message", { text: "and quickly", inbox: 2 });
  add("post-processed", { processor: "FinalCheck", turn: 1, note: "Check your work." });
  add("model-response", response(2, "", {
    toolCalls: [
      { id: "c1", name: "findSlot", args: { after: "2025-01-01", nested: { list: [1, 2] } }, providerOptions: { openai: { itemId: "fc1" } } },
      { id: "c2", name: "broken", args: {} },
      { id: "c3", name: "never", args: {} },
    ],
    finishReason: "tool-calls",
  }));
  records.push(historyRecord(records.length, "tool-call", 2_000, formal("c1", "findSlot", { result: "slot at 10:00" })));
  records.push(historyRecord(records.length, "tool-call", 2_001, formal("c2", "broken", { result: "printed first", error: "TypeError: boom" })));
  records.push(historyRecord(records.length, "tool-call", 2_002, { ...formal("x", "inCell"), origin: "code" }));
  add("model-response", response(3, "", { model: "anthropic/claude", reasoning: [{ text: "other provider" }] }));
  add("approval", { requestId: "r1", tool: "pay", args: "{\"amount\":3}", approved: true, by: "ann", decidedAt: 5 });
  add("model-response", response(4, "```ts\nprint(2)\n```", {
    code: "print(2)",
    parts: [{ type: "reasoning", index: 0 }, { type: "text", text: "```ts\nprint(2)\n```", providerOptions: { openai: { itemId: "m1" } } }, { type: "tool-call", index: 0 }],
    reasoning: [{ text: "plan" }],
    toolCalls: [{ id: "c4", name: TS_CLI, args: { code: "print(3)" } }],
  }));
  records.push(historyRecord(records.length, "tool-call", 3_000, formal("c4", TS_CLI, { result: "" })));
  add("console", { stream: "out", text: "2" });
  add("console", { stream: "error", text: "Error: late" });
  add("child-ended", { childId: "child-1", role: "helper", status: "DONE", result: "42" });
  add("post-processed", { processor: "FinalCheck", turn: 5, veto: "Not like that." });
  add("dialog", { body: "Hello there" });
  add("variables", { put: ["a"], deleted: [] });
  add("model-response", response(5, "```ts\n// only a comment\n```", { code: "// only a comment" }));
  add("user-message", { text: "Thanks", inbox: 3 });
  add("model-response", response(6, "All done.", { code: null }));
  add("child-ended", { childId: "child-2", role: "helper", status: "FAILED", reason: "no" });
  return records;
}

const VARIANTS: BuildMessagesOptions[] = CHAT_STYLES.flatMap((name) => [
  { style: chatStyleRules(name) },
  { style: chatStyleRules(name), provider: "openai", xmlBox: "CONSOLE" },
  { style: chatStyleRules(name), provider: "anthropic" },
]);

const text = (messages: ModelMessage[]) => JSON.stringify(messages);

describe("MessageBuilder", () => {
  it("gives, record by record, exactly the messages a build from the whole history gives", () => {
    const history = corpus();
    for (const options of VARIANTS) {
      const builder = new MessageBuilder(options);
      for (let length = 0; length <= history.length; length++) {
        const prefix = history.slice(0, length);
        const incremental = builder.messagesFor(prefix);
        const scratch = buildMessages(prefix, options);
        assert.equal(text(incremental), text(scratch), `${options.style!.name}, ${options.provider}, after ${length} records`);
        assert.deepEqual(incremental, scratch);
      }
    }
  });

  it("gives the same messages when several steps' records arrive at once", () => {
    const history = corpus();
    for (const options of VARIANTS) {
      const builder = new MessageBuilder(options);
      for (let length = 0; length <= history.length; length += 3) {
        const prefix = history.slice(0, length);
        assert.equal(text(builder.messagesFor(prefix)), text(buildMessages(prefix, options)));
      }
      assert.equal(text(builder.messagesFor(history)), text(buildMessages(history, options)));
    }
  });

  it("starts over when handed a history that does not continue the one it read", () => {
    const history = corpus();
    const builder = new MessageBuilder({ style: chatStyleRules("MARKDOWN") });
    builder.messagesFor(history);
    const other = corpus().slice(0, 12);
    assert.equal(text(builder.messagesFor(other)), text(buildMessages(other)));
    assert.equal(text(builder.messagesFor(history.slice(0, 5))), text(buildMessages(history.slice(0, 5))));
    assert.deepEqual(builder.messagesFor([]), [{ role: "user", content: [{ type: "text", text: KICKOFF_MESSAGE }] }]);
  });

  it("hands out frozen messages, and leaves the history's own objects unfrozen", () => {
    const history = corpus();
    const messages = buildMessages(history, { style: chatStyleRules("MARKDOWN"), provider: "openai" });
    const frozenThroughout = (value: unknown): boolean =>
      typeof value !== "object" || value === null || (Object.isFrozen(value) && Object.values(value).every(frozenThroughout));
    assert.ok(messages.every(frozenThroughout));
    for (const record of history) assert.equal(Object.isFrozen(record.data), false);
    const call = history.find((record) => record.kind === "model-response" && record.data.toolCalls.length > 1);
    assert.ok(call?.kind === "model-response" && !Object.isFrozen(call.data.toolCalls[0]!.args));
  });

  it("says whether it renders as asked", () => {
    const markdown = chatStyleRules("MARKDOWN");
    const builder = new MessageBuilder({ style: markdown, provider: "openai" });
    assert.ok(builder.renders({ style: markdown, provider: "openai" }));
    assert.ok(!builder.renders({ style: markdown, provider: "anthropic" }));
    assert.ok(!builder.renders({ style: chatStyleRules("CONSOLE"), provider: "openai" }));
    assert.ok(!builder.renders({ style: markdown, provider: "openai", xmlBox: "OUT" }));
  });
});
