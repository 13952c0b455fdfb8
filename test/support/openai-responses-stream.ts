/**
 * @module
 * Streamed answers of OpenAI's Responses API in its wire format: `response.created`, then for each output item
 * `response.output_item.added`, its deltas and `response.output_item.done`, then `response.completed` with the
 * usage. Reasoning items carry a summary; message items `output_text`; function calls their arguments.
 */
import type { ScriptedResponse, StreamItem } from "./loopback-server.ts";

/** An output item of a response. */
export type ResponsesItem =
  | { type: "reasoning"; id: string; summary: string }
  | { type: "message"; id: string; text: string | string[] }
  | { type: "function_call"; id: string; callId: string; name: string; arguments: string };

/** What one streamed response holds. */
export interface ResponsesReply {
  items: ResponsesItem[];
  usage?: { input: number; output: number; cached?: number; reasoning?: number };
  /** Set for `response.incomplete` (e.g. `max_output_tokens`). */
  incomplete?: string;
}

const event = (type: string, data: Record<string, unknown>, sequence: { next: number }): StreamItem => ({
  event: type,
  data: { type, sequence_number: sequence.next++, ...data },
});

/** The event stream of one streamed response. */
export function responsesStream(reply: ResponsesReply, responseId = "resp_test"): ScriptedResponse {
  const sequence = { next: 0 };
  const base = { id: responseId, object: "response", created_at: 1_750_000_000, model: "gpt-5-mini-2025-08-07", output: [] as unknown[] };
  const events: StreamItem[] = [
    event("response.created", { response: { ...base, status: "in_progress", usage: null } }, sequence),
    event("response.in_progress", { response: { ...base, status: "in_progress", usage: null } }, sequence),
  ];
  const done: unknown[] = [];
  reply.items.forEach((item, output_index) => {
    if (item.type === "reasoning") {
      events.push(event("response.output_item.added", { output_index, item: { type: "reasoning", id: item.id, summary: [] } }, sequence));
      events.push(event("response.reasoning_summary_part.added", { item_id: item.id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } }, sequence));
      events.push(event("response.reasoning_summary_text.delta", { item_id: item.id, output_index, summary_index: 0, delta: item.summary }, sequence));
      events.push(event("response.reasoning_summary_part.done", { item_id: item.id, output_index, summary_index: 0, part: { type: "summary_text", text: item.summary } }, sequence));
      const full = { type: "reasoning", id: item.id, summary: [{ type: "summary_text", text: item.summary }] };
      events.push(event("response.output_item.done", { output_index, item: full }, sequence));
      done.push(full);
    } else if (item.type === "message") {
      const deltas = typeof item.text === "string" ? [item.text] : item.text;
      const text = deltas.join("");
      events.push(event("response.output_item.added", { output_index, item: { type: "message", id: item.id, role: "assistant", status: "in_progress", content: [] } }, sequence));
      events.push(event("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }, sequence));
      for (const delta of deltas) events.push(event("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] }, sequence));
      events.push(event("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text }, sequence));
      const full = { type: "message", id: item.id, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
      events.push(event("response.output_item.done", { output_index, item: full }, sequence));
      done.push(full);
    } else {
      events.push(event("response.output_item.added", { output_index, item: { type: "function_call", id: item.id, call_id: item.callId, name: item.name, arguments: "", status: "in_progress" } }, sequence));
      events.push(event("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments }, sequence));
      events.push(event("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments }, sequence));
      const full = { type: "function_call", id: item.id, call_id: item.callId, name: item.name, arguments: item.arguments, status: "completed" };
      events.push(event("response.output_item.done", { output_index, item: full }, sequence));
      done.push(full);
    }
  });
  const usage = reply.usage ?? { input: 100, output: 20 };
  events.push(event(reply.incomplete ? "response.incomplete" : "response.completed", {
    response: {
      ...base,
      status: reply.incomplete ? "incomplete" : "completed",
      incomplete_details: reply.incomplete ? { reason: reply.incomplete } : null,
      output: done,
      usage: {
        input_tokens: usage.input, input_tokens_details: { cached_tokens: usage.cached ?? 0 },
        output_tokens: usage.output, output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  }, sequence));
  return { events };
}

/**
 * The check the Responses API makes that matters here: a reasoning item given by reference must be followed by
 * the item that followed it, given the same way — a reference, or (as the AI SDK sends calls) the function call
 * itself — not a message re-sent without its id. A request that fails it is answered as the API does, with a 400.
 */
export function responsesRejection(body: { input?: Array<Record<string, unknown>> }): ScriptedResponse | undefined {
  const input = body.input ?? [];
  for (const [index, item] of input.entries()) {
    if (item.type !== "item_reference" || !String(item.id).startsWith("rs_")) continue;
    const next = input[index + 1];
    const follows = next !== undefined && (next.type === "item_reference" || next.type === "function_call");
    if (!follows) {
      return {
        status: 400,
        body: { error: { message: `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`, type: "invalid_request_error", param: "input", code: null } },
      };
    }
  }
  return undefined;
}
