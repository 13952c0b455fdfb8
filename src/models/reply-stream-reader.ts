/**
 * @module
 * Reads the parts of a model stream (specification v2, v3 or v4: the part shapes STATEK reads are the same)
 * into a {@link ModelReply}: text (inline `<think>` reasoning split off), reasoning and tool calls with their
 * provider metadata, in the order they came, the finish reason and the usage. An `error` part ends the read
 * with the provider's error; a stream that ends without finishing is an `IncompleteReplyError`.
 */
import { PromptBlockedError } from "../errors/prompt-blocked-error.ts";
import { IncompleteReplyError } from "../errors/incomplete-reply-error.ts";
import { InvalidToolArgumentsError } from "../errors/invalid-tool-arguments-error.ts";
import type { ModelReply, ModelToolCall, ModelUsage, ProviderOptions, ReasoningPart, ReplyObserver, ReplyPart } from "./model-request.ts";
import { usageFromRawChunk } from "./raw-chunk-usage.ts";
import { streamPartError } from "./stream-error.ts";
import { splitOpenReasoning, ThinkTagSplitter } from "./think-tags.ts";

/** A stream part as STATEK reads it (a loose view of the v2, v3 and v4 unions). */
export interface StreamPart {
  type: string;
  id?: string;
  delta?: string;
  providerMetadata?: ProviderOptions;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  providerExecuted?: boolean;
  usage?: unknown;
  finishReason?: unknown;
  error?: unknown;
  rawValue?: unknown;
}

interface TextEntry {
  text: string;
  providerOptions: ProviderOptions | undefined;
}

type Slot = { type: "text"; entry: TextEntry } | { type: "reasoning"; entry: ReasoningPart } | { type: "tool-call"; call: ModelToolCall };

/** Collects one streamed reply. Call {@link read} for every part, then {@link reply}. */
export class ReplyStreamReader {
  readonly #observer: ReplyObserver;
  readonly #order: Slot[] = [];
  readonly #texts = new Map<string, TextEntry>();
  readonly #reasoning = new Map<string, ReasoningPart>();
  readonly #splitter = new ThinkTagSplitter();
  /** Where `<think>` text goes: one reasoning part, made when the first such text arrives. */
  #inlineReasoning: ReasoningPart | undefined;
  #finishUsage: ModelUsage | undefined;
  #rawUsage: ModelUsage | undefined;
  #finishReason: { unified: string; raw: string | undefined } | undefined;
  /** The provider's reason for refusing the prompt itself, when it did. */
  #blockReason: string | undefined;
  #lastTextId: string | undefined;

  constructor(observer: ReplyObserver = {}) {
    this.#observer = observer;
  }

  /** Takes in one stream part. Throws the provider's error for an `error` part. */
  read(part: StreamPart): void {
    switch (part.type) {
      case "text-start":
        this.#text(part.id ?? "", part.providerMetadata);
        break;
      case "text-delta": {
        const id = part.id ?? this.#lastTextId ?? "";
        this.#text(id, part.providerMetadata);
        for (const segment of this.#splitter.push(part.delta ?? "")) this.#segment(id, segment.kind, segment.text);
        break;
      }
      case "text-end":
        this.#text(part.id ?? "", part.providerMetadata);
        break;
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end": {
        const entry = this.#reasoningEntry(part.id ?? "");
        entry.providerOptions = mergeMetadata(entry.providerOptions, part.providerMetadata);
        if (part.type === "reasoning-delta") entry.text += part.delta ?? "";
        break;
      }
      case "tool-call":
        // Provider-executed calls (a hosted web search) already ran on the provider's side; ours are the rest.
        if (part.providerExecuted !== true) this.#order.push({ type: "tool-call", call: toolCall(part) });
        break;
      case "finish":
        this.#finishUsage = usageOfFinish(part.usage);
        this.#finishReason = finishReasonOf(part.finishReason);
        this.#blockReason = promptBlockReason(part.providerMetadata);
        this.#observer.onUsage?.(this.usage());
        break;
      case "raw": {
        const usage = usageFromRawChunk(part.rawValue, this.#rawUsage);
        if (usage) {
          this.#rawUsage = usage;
          this.#observer.onUsage?.(this.usage());
        }
        break;
      }
      case "error":
        throw streamPartError(part.error);
      // stream-start, response-metadata, sources, files, provider tool results: not part of a STATEK reply.
    }
  }

  /** The usage reported so far: the finish part's counts, else what raw chunks said, else unknown. */
  usage(): ModelUsage {
    const finish = this.#finishUsage;
    const raw = this.#rawUsage;
    const pick = (key: keyof ModelUsage) => finish?.[key] ?? raw?.[key] ?? null;
    return { inputTokens: pick("inputTokens"), cachedInputTokens: pick("cachedInputTokens"), outputTokens: pick("outputTokens") };
  }

  /**
   * The reply, once the stream has ended.
   *
   * @throws {IncompleteReplyError} When the stream ended without finishing, or the provider says it was interrupted.
   */
  reply(modelName: string): ModelReply {
    for (const segment of this.#splitter.end()) this.#segment(this.#lastTextId ?? "", segment.kind, segment.text);
    const finish = this.#finishReason;
    if (!finish) throw new IncompleteReplyError({});
    if (finish.unified === "interrupted" || finish.unified === "error") throw new IncompleteReplyError({ finishReason: finish.unified });
    // A refused prompt, unlike a refused reply, is refused again on every attempt and every turn.
    if (finish.unified === "content-filter" && this.#blockReason !== undefined && this.#order.length === 0) throw new PromptBlockedError({ blockReason: this.#blockReason });

    const reasoning: ReasoningPart[] = [];
    const toolCalls: ModelToolCall[] = [];
    const parts: ReplyPart[] = [];
    const texts: string[] = [];
    let textMetadata = false;
    for (const slot of this.#order) {
      if (slot.type === "reasoning") {
        // Redacted reasoning has no text but metadata the provider needs back.
        if (slot.entry.text === "" && slot.entry.providerOptions === undefined) continue;
        parts.push({ type: "reasoning", index: reasoning.length });
        reasoning.push(slot.entry.providerOptions ? slot.entry : { text: slot.entry.text });
      } else if (slot.type === "tool-call") {
        parts.push({ type: "tool-call", index: toolCalls.length });
        toolCalls.push(slot.call);
      } else {
        const { text, providerOptions } = slot.entry;
        if (text === "" && providerOptions === undefined) continue;
        texts.push(text);
        if (providerOptions) textMetadata = true;
        parts.push(providerOptions ? { type: "text", text, providerOptions } : { type: "text", text });
      }
    }
    let text = texts.join("");
    // A reply that opens inside reasoning (its `<think>` was in the prompt) shows only the closing tag.
    if (!this.#splitter.sawTag && !textMetadata) {
      const open = splitOpenReasoning(text);
      if (open) {
        text = open.text;
        reasoning.unshift({ text: open.reasoning });
      }
    }
    return {
      text,
      toolCalls,
      reasoning,
      ...(textMetadata ? { parts } : {}),
      usage: this.usage(),
      finishReason: finish.unified,
      ...(finish.raw !== undefined && finish.raw !== finish.unified ? { rawFinishReason: finish.raw } : {}),
      modelName,
    };
  }

  #text(id: string, metadata: ProviderOptions | undefined): TextEntry {
    let entry = this.#texts.get(id);
    if (!entry) {
      entry = { text: "", providerOptions: undefined };
      this.#texts.set(id, entry);
      this.#order.push({ type: "text", entry });
    }
    entry.providerOptions = mergeMetadata(entry.providerOptions, metadata);
    this.#lastTextId = id;
    return entry;
  }

  #reasoningEntry(id: string): ReasoningPart {
    let entry = this.#reasoning.get(id);
    if (!entry) {
      entry = { text: "" };
      this.#reasoning.set(id, entry);
      this.#order.push({ type: "reasoning", entry });
    }
    return entry;
  }

  #segment(textId: string, kind: "text" | "reasoning", text: string): void {
    if (kind === "reasoning") {
      if (!this.#inlineReasoning) {
        this.#inlineReasoning = { text: "" };
        this.#order.push({ type: "reasoning", entry: this.#inlineReasoning });
      }
      this.#inlineReasoning.text += text;
      return;
    }
    this.#text(textId, undefined).text += text;
    this.#observer.onTextDelta?.(text);
  }
}

/** Provider metadata merged part by part: later keys win within each provider's object. */
function mergeMetadata(current: ProviderOptions | undefined, next: ProviderOptions | undefined): ProviderOptions | undefined {
  if (!next || Object.keys(next).length === 0) return current;
  const merged: ProviderOptions = { ...current };
  for (const [provider, values] of Object.entries(next)) {
    if (typeof values === "object" && values !== null) merged[provider] = { ...merged[provider], ...values };
  }
  return merged;
}

function toolCall(part: StreamPart): ModelToolCall {
  const call: ModelToolCall = { id: String(part.toolCallId ?? ""), name: String(part.toolName ?? ""), args: {} };
  const parsed = parseToolArguments(call, part.input);
  if ("args" in parsed) call.args = parsed.args;
  else call.invalidArguments = parsed.invalid;
  if (part.providerMetadata && Object.keys(part.providerMetadata).length > 0) call.providerOptions = part.providerMetadata;
  return call;
}

/** The arguments as an object, or what was wrong with them (the call is kept either way). */
function parseToolArguments(call: ModelToolCall, input: unknown): { args: Record<string, unknown> } | { invalid: { text: string; error: string } } {
  if (isPlainObject(input)) return { args: input }; // the spec says a JSON string, but a parsed object is unambiguous
  const raw = typeof input === "string" ? input : String(input);
  // Providers send an empty string for a call of a tool without parameters.
  if (raw.trim() === "") return { args: {} };
  let parsed: unknown;
  let cause: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    cause = error;
  }
  if (cause === undefined && isPlainObject(parsed)) return { args: parsed };
  const error = new InvalidToolArgumentsError({ toolName: call.name, toolCallId: call.id, rawArguments: raw, cause });
  return { invalid: { text: raw, error: `${error.name}: ${error.message}` } };
}

/** Token counts of a finish part: nested in v3 and v4, flat in v2. Missing counts are unknown (`null`). */
function usageOfFinish(usage: unknown): ModelUsage {
  const fields = isPlainObject(usage) ? usage : {};
  const nested = isPlainObject(fields.inputTokens);
  const input = count(nested ? (fields.inputTokens as Record<string, unknown>).total : fields.inputTokens);
  const cached = count(nested ? (fields.inputTokens as Record<string, unknown>).cacheRead : fields.cachedInputTokens);
  const output = count(isPlainObject(fields.outputTokens) ? fields.outputTokens.total : fields.outputTokens);
  return { inputTokens: input, cachedInputTokens: input === null ? null : cached ?? 0, outputTokens: output };
}

/** v3 and v4 report `{ unified, raw }`; v2 a bare string. */
function finishReasonOf(reason: unknown): { unified: string; raw: string | undefined } {
  if (typeof reason === "string") return { unified: reason, raw: undefined };
  if (isPlainObject(reason) && typeof reason.unified === "string") {
    return { unified: reason.unified, raw: typeof reason.raw === "string" ? reason.raw : undefined };
  }
  return { unified: "other", raw: undefined };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `promptFeedback.blockReason` from any provider's metadata of the finish part (Gemini, Vertex). */
function promptBlockReason(metadata: unknown): string | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  for (const entry of Object.values(metadata as Record<string, unknown>)) {
    if (typeof entry !== "object" || entry === null) continue;
    const feedback = (entry as Record<string, unknown>).promptFeedback;
    if (typeof feedback !== "object" || feedback === null) continue;
    const reason = (feedback as Record<string, unknown>).blockReason;
    if (typeof reason === "string" && reason !== "" && reason !== "BLOCK_REASON_UNSPECIFIED") return reason;
  }
  return undefined;
}
