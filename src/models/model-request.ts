/**
 * @module
 * The model bridge's contract: what the job runner sends to a model and what it gets back, independent of the
 * provider. `generate-reply.ts` turns a {@link ModelRequest} into a streamed call of any AI SDK language model
 * (specification v2, v3 or v4) and reads the stream into a {@link ModelReply}.
 */
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ModelCallSettings } from "./model-call-settings.ts";

/** A message as sent to the model: the AI SDK's v4 prompt format, without system messages. */
export type ModelMessage = Exclude<LanguageModelV4Message, { role: "system" }>;

/**
 * Provider metadata of one part of a reply (an OpenAI Responses item id, an Anthropic thinking signature, a
 * Gemini thought signature), by provider name. It goes back as the part's provider options when the reply is
 * replayed to the same provider, so the provider can match the part with what it produced.
 */
export type ProviderOptions = Record<string, Record<string, unknown>>;

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
  /** Call options the job's settings chose (temperature, reasoning, …). */
  settings?: ModelCallSettings;
  /**
   * The job the call is for, passed to the model as `providerOptions.statek.jobId` (providers read only their
   * own key; `scriptedModel` keeps one script per job by it).
   */
  jobId?: string;
}

/** What a caller of `generateReply` hears while the reply streams in. */
export interface ReplyObserver {
  /** Reply text as it arrives (inline `<think>` reasoning left out). */
  onTextDelta?(delta: string): void;
  /** The usage the provider has reported so far, each time it reports more (also before the reply ends). */
  onUsage?(usage: ModelUsage): void;
}

/** A formal tool call requested by the model. */
export interface ModelToolCall {
  /** The provider's id for the call; results are sent back under it. */
  id: string;
  name: string;
  /** The parsed JSON arguments; `{}` when they could not be read (see `invalidArguments`). */
  args: Record<string, unknown>;
  /**
   * Set when the arguments the model produced are not a JSON object: the text as received and what is wrong
   * with it. Such a call is recorded with the reply but never run; the model is shown the error as its result.
   */
  invalidArguments?: { text: string; error: string };
  providerOptions?: ProviderOptions;
}

/** A reasoning (thinking) part of a reply. */
export interface ReasoningPart {
  text: string;
  providerOptions?: ProviderOptions;
}

/**
 * One part of a reply in the order the provider sent it: a reasoning part or tool call by its index in
 * {@link ModelReply.reasoning} / {@link ModelReply.toolCalls}, or a text part with its own text and metadata.
 */
export type ReplyPart =
  | { type: "reasoning"; index: number }
  | { type: "text"; text: string; providerOptions?: ProviderOptions }
  | { type: "tool-call"; index: number };

/**
 * Token counts reported for one model call. A count the provider did not report is `null` (unknown), never 0;
 * input tokens reported without a cache figure count as uncached.
 */
export interface ModelUsage {
  inputTokens: number | null;
  /** Input tokens served from the provider's cache (included in `inputTokens`). */
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/** What a model answered, normalised across providers and specification versions. */
export interface ModelReply {
  /** All text parts joined (inline `<think>` blocks moved to `reasoning`). */
  text: string;
  toolCalls: ModelToolCall[];
  /** Reasoning parts, kept so they can be replayed to the same provider. */
  reasoning: ReasoningPart[];
  /**
   * The reply's parts in the order they came, present when a text part carried provider metadata (OpenAI
   * Responses message items, Gemini thought signatures): a replay to the same provider rebuilds the reply
   * from them, so every reasoning item is followed by the item that followed it.
   */
  parts?: ReplyPart[];
  usage: ModelUsage;
  /**
   * Why the model stopped, as the AI SDK unifies it: `stop`, `tool-calls`, `length` (the output token limit cut
   * the reply off), `content-filter` (a refusal or the provider's filter), `other`.
   */
  finishReason: string;
  /** The provider's own word for it (`max_tokens`, `refusal`), when it gave one. */
  rawFinishReason?: string;
  /** `provider/modelId` of the model that answered. */
  modelName: string;
}
