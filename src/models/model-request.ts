/**
 * @module
 * The model bridge's contract: what the job runner sends to a model and what it gets back, independent of the
 * provider. `generate-reply.ts` turns a {@link ModelRequest} into a call of any AI SDK language model
 * (specification v2, v3 or v4) and normalises its result into a {@link ModelReply}.
 */
import type { LanguageModelV4Message } from "@ai-sdk/provider";

/** A message as sent to the model: the AI SDK's v4 prompt format, without system messages. */
export type ModelMessage = Exclude<LanguageModelV4Message, { role: "system" }>;

/** A tool as offered to the model in the provider payload. */
export interface ModelToolPayload {
  name: string;
  description: string;
  /** JSON Schema (draft 7) of the tool's arguments object. */
  inputSchema: Record<string, unknown>;
  /** Ask the provider to hold the model to the schema (OpenAI strict mode). */
  strict?: boolean;
}

/** One request to a model. */
export interface ModelRequest {
  /** The rendered system prompt. */
  system: string;
  /** The conversation so far, oldest first. Never empty. */
  messages: ModelMessage[];
  /** Tools the model may call formally; empty when formal tool calls are off. */
  tools: ModelToolPayload[];
  /** Cancels the call. */
  abortSignal?: AbortSignal;
}

/** A formal tool call requested by the model. */
export interface ModelToolCall {
  /** The provider's id for the call; results are sent back under it. */
  id: string;
  name: string;
  /** The parsed JSON arguments. */
  args: Record<string, unknown>;
}

/** Token counts reported for one model call. Missing counts are 0. */
export interface ModelUsage {
  inputTokens: number;
  /** Input tokens served from the provider's cache (included in `inputTokens`). */
  cachedInputTokens: number;
  outputTokens: number;
}

/** What a model answered, normalised across providers and specification versions. */
export interface ModelReply {
  /** All text parts joined. */
  text: string;
  toolCalls: ModelToolCall[];
  /** Reasoning parts, kept so they can be replayed to the same provider. */
  reasoning: Array<{ text: string; providerOptions?: Record<string, Record<string, unknown>> }>;
  usage: ModelUsage;
  /** The provider's finish reason (`stop`, `tool-calls`, `length`, …). */
  finishReason: string;
  /** `provider/modelId` of the model that answered. */
  modelName: string;
}
