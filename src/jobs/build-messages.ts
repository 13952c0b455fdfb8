/**
 * @module
 * Turns a job's history into the messages of the next model request (MARKDOWN style): user messages as they
 * came; each model response as an assistant message (its cell fenced, its formal tool calls as tool-call
 * parts); the results of those calls as one tool message; then the console output that executing the
 * response produced, as a user message.
 */
import type { ModelMessage } from "../models/model-request.ts";
import type { ToolCallRecord } from "../tools/call-tool.ts";
import { formatMarkdownCode, formatMarkdownConsole } from "./chat-styles/markdown.ts";
import type { ConsoleRecord, HistoryRecord, ModelResponseRecord } from "./history.ts";

/** The user message that opens a job with no user message of its own. */
export const KICKOFF_MESSAGE = "The workspace is ready. Begin.";

/** Shown when executing a cell printed nothing, so the model knows it ran. */
export const NO_OUTPUT = "(no output)";

type AssistantPart = Extract<ModelMessage, { role: "assistant" }>["content"][number];

/** The conversation for the next request. Never empty. */
export function buildMessages(history: readonly HistoryRecord[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let response: ModelResponseRecord | undefined;
  let results: ToolCallRecord[] = [];
  let lines: string[] = [];
  const user = (text: string) => messages.push({ role: "user", content: [{ type: "text", text }] });
  const flush = () => {
    if (!response) return;
    if (results.length || response.toolCalls.length) {
      const byId = new Map(results.map((record) => [record.callId, record]));
      messages.push({
        role: "tool",
        content: response.toolCalls.map((call) => {
          const record = byId.get(call.id);
          const output = record?.error !== undefined
            ? { type: "error-text" as const, value: record.error }
            : { type: "text" as const, value: record?.result ?? "" };
          return { type: "tool-result" as const, toolCallId: call.id, toolName: call.name, output };
        }),
      });
    }
    if (lines.length) user(formatMarkdownConsole(lines));
    else if (response.toolCalls.length === 0) user(NO_OUTPUT);
    response = undefined;
    results = [];
    lines = [];
  };
  for (const record of history) {
    switch (record.kind) {
      case "user-message":
        flush();
        user(record.data.text);
        break;
      case "model-response": {
        flush();
        response = record.data;
        const content: AssistantPart[] = [];
        for (const part of response.reasoning) {
          content.push({ type: "reasoning", text: part.text, ...(part.providerOptions ? { providerOptions: part.providerOptions } : {}) });
        }
        const text = response.code !== null ? formatMarkdownCode(response.code) : response.text;
        if (text) content.push({ type: "text", text });
        for (const call of response.toolCalls) {
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.args });
        }
        if (content.length === 0) content.push({ type: "text", text: "" });
        if (messages.length === 0) user(KICKOFF_MESSAGE);
        messages.push({ role: "assistant", content });
        break;
      }
      case "tool-call":
        if (response && record.data.origin === "formal") results.push(record.data);
        break;
      case "console":
        if (response) lines.push((record.data as ConsoleRecord).text);
        break;
    }
  }
  flush();
  if (messages.length === 0) user(KICKOFF_MESSAGE);
  return messages;
}
