/**
 * @module
 * Streamed Chat Completions in OpenAI's wire format (`stream: true` with `stream_options.include_usage`):
 * `chat.completion.chunk` events, the finish reason on the last choice chunk, the usage on a final chunk with
 * no choices, then `[DONE]`. OpenAI-compatible servers (Ollama, vLLM, OpenRouter) send the same.
 */
import type { ScriptedResponse, StreamItem } from "./loopback-server.ts";

/** Token usage as a Chat Completions response reports it. */
export interface ChatUsage {
  prompt: number;
  completion: number;
  cached?: number;
}

/** What one streamed reply holds. */
export interface ChatReply {
  /** The text, as the deltas it arrives in (a string is one delta). */
  content?: string | string[];
  /** A refusal in place of content. */
  refusal?: string;
  /** Tool calls; `arguments` as the deltas they arrive in. */
  toolCalls?: Array<{ id: string; name: string; arguments: string | string[] }>;
  /** @default "stop", or "tool_calls" when there are tool calls */
  finish?: string;
  /** `null`: the server reports no usage. */
  usage?: ChatUsage | null;
  /** Items to put before the first content chunk (a `wait`, a keep-alive comment). */
  before?: StreamItem[];
  /** Items to put after the first content delta. */
  afterFirstDelta?: StreamItem[];
  /** Stop after the content: no finish chunk, no usage, no `[DONE]` (a connection that died). */
  cut?: boolean;
}

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): StreamItem => ({
  data: { id: "chatcmpl-test", object: "chat.completion.chunk", created: 1_750_000_000, model: "gpt-5-mini-2025-08-07", system_fingerprint: null, choices, ...extra },
});

/** The `usage` object of a Chat Completions response. */
export function chatUsage({ prompt, completion, cached = 0 }: ChatUsage): Record<string, unknown> {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** The event stream of one streamed chat completion. */
export function chatStream(reply: ChatReply): ScriptedResponse {
  const events: StreamItem[] = [chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }])];
  events.push(...(reply.before ?? []));
  const deltas = typeof reply.content === "string" ? [reply.content] : reply.content ?? [];
  deltas.forEach((content, index) => {
    events.push(chunk([{ index: 0, delta: { content }, logprobs: null, finish_reason: null }]));
    if (index === 0) events.push(...(reply.afterFirstDelta ?? []));
  });
  if (reply.refusal !== undefined) events.push(chunk([{ index: 0, delta: { refusal: reply.refusal }, logprobs: null, finish_reason: null }]));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const parts = typeof call.arguments === "string" ? [call.arguments] : call.arguments;
    events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, logprobs: null, finish_reason: null }]));
    for (const part of parts) events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] }, logprobs: null, finish_reason: null }]));
  });
  if (reply.cut) return { events };
  const finish = reply.finish ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
  events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
  if (reply.usage !== null) events.push(chunk([], { usage: chatUsage(reply.usage ?? { prompt: 10, completion: 5 }) }));
  events.push({ raw: "data: [DONE]\n\n" });
  return { events };
}

/** An error response of OpenAI's API. */
export function openAiError(status: number, message: string, type: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers, body: { error: { message, type, param: null, code: null } } };
}
