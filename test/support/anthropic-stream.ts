/**
 * @module
 * Streamed Messages in Anthropic's wire format: `message_start` (with the input usage), a start / delta / stop
 * event triple per content block, `message_delta` (stop reason, output usage), `message_stop`.
 */
import type { ScriptedResponse, StreamItem } from "./loopback-server.ts";

/** A content block of a reply. */
export type AnthropicBlock =
  | { type: "text"; text: string | string[] }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: string | string[] };

/** What one streamed reply holds. */
export interface AnthropicReply {
  blocks: AnthropicBlock[];
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** @default "end_turn", or "tool_use" when a block is a tool call */
  stopReason?: string;
  /** Items to put after the first content delta (a `wait`, to act while the reply is half sent). */
  afterFirstDelta?: StreamItem[];
  /** Stop after the blocks and keep the connection open: a reply that stalls. */
  stall?: boolean;
}

const event = (type: string, data: Record<string, unknown>): StreamItem => ({ event: type, data: { type, ...data } });

/** The event stream of one streamed message. */
export function messageStream(reply: AnthropicReply): ScriptedResponse {
  const { usage } = reply;
  const events: StreamItem[] = [event("message_start", {
    message: {
      id: "msg_01Test", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0, output_tokens: 1, service_tier: "standard" },
    },
  })];
  let firstDelta = true;
  const delta = (index: number, value: Record<string, unknown>) => {
    events.push(event("content_block_delta", { index, delta: value }));
    if (firstDelta) events.push(...(reply.afterFirstDelta ?? []));
    firstDelta = false;
  };
  reply.blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of typeof block.text === "string" ? [block.text] : block.text) delta(index, { type: "text_delta", text });
    } else if (block.type === "thinking") {
      events.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      delta(index, { type: "thinking_delta", thinking: block.thinking });
      delta(index, { type: "signature_delta", signature: block.signature });
    } else {
      events.push(event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }));
      for (const partial_json of typeof block.input === "string" ? [block.input] : block.input) delta(index, { type: "input_json_delta", partial_json });
    }
    events.push(event("content_block_stop", { index }));
  });
  if (reply.stall) return { events, stallAfterEvents: true };
  const stopReason = reply.stopReason ?? (reply.blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
  events.push(event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } }));
  events.push(event("message_stop", {}));
  return { events };
}

/** An error response of Anthropic's API. */
export function anthropicError(status: number, type: string, text: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers, body: { type: "error", error: { type, message: text } } };
}
