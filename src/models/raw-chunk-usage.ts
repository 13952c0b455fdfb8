/**
 * @module
 * Usage read from the raw chunks of a model stream, for an attempt that ends before its provider package
 * reports usage (the packages report it only in the stream's last part). Anthropic reports input tokens in
 * its first event and Gemini in every chunk, so a reply abandoned at the timeout still says what it used so
 * far; OpenAI and compatible servers report usage only at the end. Best effort: a format not recognised here
 * yields nothing, and the attempt's usage is recorded as unknown.
 */
import type { ModelUsage } from "./model-request.ts";

type Json = Record<string, unknown>;

/**
 * The usage a raw stream chunk reports, merged over what earlier chunks reported; `undefined` when the chunk
 * reports none.
 *
 * @example
 * ```ts
 * usageFromRawChunk({ type: "message_start", message: { usage: { input_tokens: 12, output_tokens: 1 } } }, undefined);
 * // { inputTokens: 12, cachedInputTokens: 0, outputTokens: 1 }
 * ```
 */
export function usageFromRawChunk(chunk: unknown, previous: ModelUsage | undefined): ModelUsage | undefined {
  if (!isObject(chunk)) return undefined;
  // Anthropic Messages: message_start carries the input (cache reads and writes counted in, as the package
  // does), message_delta the running output count.
  if (chunk.type === "message_start" && isObject(chunk.message) && isObject(chunk.message.usage)) {
    const usage = chunk.message.usage;
    const input = number(usage.input_tokens);
    const read = number(usage.cache_read_input_tokens) ?? 0;
    return {
      inputTokens: input === undefined ? null : input + read + (number(usage.cache_creation_input_tokens) ?? 0),
      cachedInputTokens: input === undefined ? null : read,
      outputTokens: number(usage.output_tokens) ?? null,
    };
  }
  if (chunk.type === "message_delta" && isObject(chunk.usage)) {
    return {
      inputTokens: previous?.inputTokens ?? null,
      cachedInputTokens: previous?.cachedInputTokens ?? null,
      outputTokens: number(chunk.usage.output_tokens) ?? previous?.outputTokens ?? null,
    };
  }
  // Gemini: usageMetadata on every chunk.
  if (isObject(chunk.usageMetadata)) {
    const usage = chunk.usageMetadata;
    const candidates = number(usage.candidatesTokenCount);
    const thoughts = number(usage.thoughtsTokenCount) ?? 0;
    return {
      inputTokens: number(usage.promptTokenCount) ?? previous?.inputTokens ?? null,
      cachedInputTokens: number(usage.cachedContentTokenCount) ?? 0,
      outputTokens: candidates === undefined ? previous?.outputTokens ?? null : candidates + thoughts,
    };
  }
  // OpenAI chat completions (and compatible servers): a usage object on the last chunk.
  if (isObject(chunk.usage) && number(chunk.usage.prompt_tokens) !== undefined) {
    const usage = chunk.usage;
    return {
      inputTokens: number(usage.prompt_tokens)!,
      cachedInputTokens: isObject(usage.prompt_tokens_details) ? number(usage.prompt_tokens_details.cached_tokens) ?? 0 : 0,
      outputTokens: number(usage.completion_tokens) ?? null,
    };
  }
  // OpenAI Responses: response.completed / response.incomplete carry response.usage.
  if (isObject(chunk.response) && isObject(chunk.response.usage)) {
    const usage = chunk.response.usage;
    return {
      inputTokens: number(usage.input_tokens) ?? null,
      cachedInputTokens: isObject(usage.input_tokens_details) ? number(usage.input_tokens_details.cached_tokens) ?? 0 : 0,
      outputTokens: number(usage.output_tokens) ?? null,
    };
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
