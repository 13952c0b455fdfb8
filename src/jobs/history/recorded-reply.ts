/**
 * @module
 * The parts of a model reply as history stores them: tool calls, reasoning, part order and usage, with the
 * providers' metadata copied as plain JSON (the store keeps only JSON; providers may leave `undefined` in).
 */
import type { ModelReply, ModelToolCall, ModelUsage, ProviderOptions, ReplyPart } from "../../models/model-request.ts";
import type { JsonValue } from "../../store/store.ts";
import type { ModelResponseRecord, RecordedProviderOptions, RecordedReplyPart, RecordedToolCall, RecordedUsage } from "./history.ts";

/** A tool call as recorded. */
export function recordedToolCall(call: ModelToolCall): RecordedToolCall {
  const args = jsonOf(call.args);
  const recorded: RecordedToolCall = { id: call.id, name: call.name, args: isRecord(args) ? args : {} };
  if (call.invalidArguments) recorded.invalidArguments = { ...call.invalidArguments };
  const options = recordedOptions(call.providerOptions);
  if (options) recorded.providerOptions = options;
  return recorded;
}

/** The reasoning parts as recorded. */
export function recordedReasoning(reply: ModelReply): ModelResponseRecord["reasoning"] {
  return reply.reasoning.map((part) => {
    const options = recordedOptions(part.providerOptions);
    return options ? { text: part.text, providerOptions: options } : { text: part.text };
  });
}

/** The part order as recorded, when the reply has one. */
export function recordedParts(parts: readonly ReplyPart[] | undefined): RecordedReplyPart[] | undefined {
  return parts?.map((part) => {
    if (part.type !== "text") return { ...part };
    const options = recordedOptions(part.providerOptions);
    return options ? { type: "text", text: part.text, providerOptions: options } : { type: "text", text: part.text };
  });
}

/** Usage as recorded: unknown counts stay `null`. */
export function recordedUsage(usage: ModelUsage): RecordedUsage {
  return { inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens, outputTokens: usage.outputTokens };
}

/** Provider metadata as JSON by provider, or `undefined` when there is none. */
export function recordedOptions(options: ProviderOptions | undefined): RecordedProviderOptions | undefined {
  if (!options) return undefined;
  const result: RecordedProviderOptions = {};
  for (const [provider, values] of Object.entries(options)) {
    const json = jsonOf(values);
    if (isRecord(json)) result[provider] = json;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/** A plain JSON copy: `undefined` entries left out, anything that is not JSON data written as text. */
function jsonOf(value: unknown, depth = 0): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (depth > 64) return null;
  if (Array.isArray(value)) return value.map((entry) => (entry === undefined ? null : jsonOf(entry, depth + 1)));
  const prototype = typeof value === "object" ? Object.getPrototypeOf(value) : undefined;
  if (prototype === Object.prototype || prototype === null) {
    const copy: Record<string, JsonValue> = {};
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      if (entry !== undefined) copy[key] = jsonOf(entry, depth + 1);
    }
    return copy;
  }
  return String(value);
}

function isRecord(value: JsonValue): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
