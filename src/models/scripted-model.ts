/**
 * @module
 * A real AI SDK language model that replays scripted turns and records every request it receives, so tests can
 * assert on what the model actually saw. It works through STATEK's `generateReply` and through the `ai`
 * package's `generateText` and `streamText` alike. Part of the public API: users test their agents with it.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { MODEL_OPTION_KEYS, type ModelCallSettings } from "./model-call-settings.ts";
import { ScriptExhaustedError } from "../errors/script-exhausted-error.ts";
import type { ModelMessage, ModelToolPayload, ModelUsage } from "./model-request.ts";
import { clonePromptValue } from "./clone-prompt-value.ts";
import { ConversationRecorder } from "./conversation-recorder.ts";
import { toStreamParts } from "./scripted-stream.ts";
import { STATEK_PROVIDER_OPTIONS } from "./generate-reply.ts";

/**
 * One scripted model turn: a plain string is a text reply; an object may combine text, formal tool calls,
 * reasoning, the usage to report and why the model stopped. Usage counts left out are estimated (about 4
 * characters per token); a count given as `null` is not reported, as some providers do.
 *
 * @example
 * ```ts
 * const turns: ScriptedTurn[] = [
 *   "```ts\nconsole.log(today)\n```",
 *   { text: "Let me look.", toolCalls: [{ name: "findEmptySlot", args: { durationMinutes: 30 } }] },
 *   { reasoning: "The user wants Monday.", text: "Booked.", usage: { inputTokens: 1200, cachedInputTokens: 1000 } },
 *   { text: "```ts\nconst rows = [", finishReason: "length" }, // cut off by the output token limit
 * ];
 * ```
 */
export type ScriptedTurn = string | {
  text?: string;
  /** Formal tool calls; `id` defaults to `call-<turnIndex>-<callIndex>` (both counted from 0). */
  toolCalls?: Array<{ name: string; args: Record<string, unknown>; id?: string }>;
  reasoning?: string;
  usage?: Partial<ModelUsage>;
  /**
   * Why the model stopped (the AI SDK's unified reasons: `stop`, `length`, `content-filter`, `tool-calls`,
   * `other`). @default "tool-calls" when the turn has tool calls, else "stop"
   */
  finishReason?: ScriptedFinishReason;
};

/** The finish reasons a scripted turn can report. */
export type ScriptedFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "other";

/**
 * A request as the scripted model received it, with the system prompt separated from the conversation.
 *
 * @example
 * ```ts
 * const [first] = model.requests;
 * assert.match(first.system, /calendar/);
 * assert.deepEqual(first.tools.map((tool) => tool.name), ["findEmptySlot"]);
 * ```
 */
export interface ScriptedRequest {
  /** The contents of the prompt's system messages, joined with a blank line. */
  system: string;
  /**
   * The other prompt messages as received, as a deep copy (later changes by callers do not show) without keys
   * whose value is `undefined` (the `ai` package adds `providerOptions: undefined` to every message). A message the
   * caller froze throughout (STATEK freezes the messages a job keeps between its requests) is copied once: every
   * request that carries it records the same frozen copy.
   */
  messages: ModelMessage[];
  /** The function tools offered (provider-defined tools are left out); `description` is `""` when none was given. */
  tools: ModelToolPayload[];
  /** The call options the request set (`temperature`, `reasoning`, …), when it set any. */
  settings?: ModelCallSettings;
}

/**
 * Options of {@link scriptedModel}.
 *
 * @example
 * ```ts
 * scriptedModel(["Hi"], { provider: "openai", modelId: "gpt-5-mini" }); // reports itself as openai/gpt-5-mini
 * ```
 */
export interface ScriptedModelOptions {
  /** @default "scripted-model" */
  modelId?: string;
  /** @default "scripted" */
  provider?: string;
  /**
   * Each STATEK job replays the script from its first turn, so one agent serves any number of jobs (a worker
   * example, several jobs of one test). With `false`, every call of the model takes the next turn, whichever
   * job made it. Calls made outside a job (`generateText`, `generateReply`) always share one sequence.
   * @default true
   */
  perJob?: boolean;
}

/**
 * The model {@link scriptedModel} returns: an AI SDK `LanguageModelV4` that answers each call with the next
 * scripted turn and throws {@link ScriptExhaustedError} when none is left.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel(["Hello"]);
 * await generateText({ model, prompt: "Hi" });
 * model.turnsUsed; // 1
 * ```
 */
export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly modelId: string;
  /** No URL is fetched by the model itself: the AI SDK downloads files before calling it. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Every request received, oldest first, including one that found the script exhausted. */
  readonly requests: ScriptedRequest[] = [];
  readonly #turns: readonly ScriptedTurn[];
  readonly #perJob: boolean;
  #turnsUsed = 0;
  /** The next turn of calls made outside a job (and of every call, without `perJob`). */
  #sharedCursor = 0;
  /** The next turn of each job, by job id. */
  readonly #jobCursors = new Map<string, number>();
  readonly #recorder = new ConversationRecorder();

  constructor(turns: readonly ScriptedTurn[], options: ScriptedModelOptions = {}) {
    this.#turns = [...turns];
    this.provider = options.provider ?? "scripted";
    this.modelId = options.modelId ?? "scripted-model";
    this.#perJob = options.perJob ?? true;
  }

  /** How many turns have been replayed, over every job. */
  get turnsUsed(): number {
    return this.#turnsUsed;
  }

  /** How many turns are left for calls made outside a job (and for every call, without `perJob`). */
  get remaining(): number {
    return this.#turns.length - this.#sharedCursor;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const reply = this.#nextReply(options);
    return {
      content: reply.content,
      finishReason: reply.finishReason,
      usage: reply.usage,
      response: { id: reply.responseId, modelId: this.modelId },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const reply = this.#nextReply(options);
    const parts = toStreamParts({ ...reply, modelId: this.modelId });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }

  /** Records the request, then turns the next scripted turn into v4 result content. */
  #nextReply(options: LanguageModelV4CallOptions): ScriptedReply {
    // An aborted call neither consumes a turn nor counts as a request, like a request that never left.
    options.abortSignal?.throwIfAborted();
    const { request, textLength } = recordRequest(options, this.#recorder);
    this.requests.push(request);
    const jobId = jobIdOf(options);
    const cursor = this.#perJob ? jobId : undefined;
    const turnIndex = cursor === undefined ? this.#sharedCursor : (this.#jobCursors.get(cursor) ?? 0);
    const turn = this.#turns[turnIndex];
    if (turn === undefined) {
      throw new ScriptExhaustedError({ turnCount: this.#turns.length, requestNumber: turnIndex + 1, perJob: this.#perJob, ...(jobId === undefined ? {} : { jobId }) });
    }
    if (cursor === undefined) this.#sharedCursor += 1;
    else this.#jobCursors.set(cursor, turnIndex + 1);
    this.#turnsUsed += 1;
    const { text = "", toolCalls = [], reasoning = "", usage = {}, finishReason: finish } = typeof turn === "string" ? { text: turn } : turn;

    const content: LanguageModelV4Content[] = [];
    if (reasoning !== "") content.push({ type: "reasoning", text: reasoning });
    if (text !== "") content.push({ type: "text", text });
    toolCalls.forEach((call, callIndex) => {
      content.push({
        type: "tool-call",
        toolCallId: call.id ?? `call-${turnIndex}-${callIndex}`,
        toolName: call.name,
        input: JSON.stringify(call.args),
      });
    });

    const finishReason = finish ?? (toolCalls.length > 0 ? "tool-calls" : "stop");
    // `null` means "not reported"; left out means "estimate it".
    const given = (value: number | null | undefined, estimate: () => number) => (value === undefined ? estimate() : value);
    return {
      content,
      finishReason: { unified: finishReason, raw: finishReason },
      usage: toV4Usage({
        inputTokens: given(usage.inputTokens, () => estimateTokens(textLength)),
        cachedInputTokens: given(usage.cachedInputTokens, () => 0),
        outputTokens: given(usage.outputTokens, () => estimateTokens(text.length)),
      }),
      responseId: `scripted-${turnIndex}`,
    };
  }
}

/**
 * A real AI SDK model (specification v4) that replays `turns` in order, one per call of `doGenerate` or
 * `doStream`, and records each request in `.requests`. Each STATEK job replays the script from its start
 * (`perJob: false` shares one sequence between jobs). Tool calls finish with `tool-calls`, other turns with
 * `stop`, unless the turn gives its `finishReason`. Usage not given in a turn is estimated deterministically: input tokens are the characters of the
 * prompt's text (system messages and text parts) divided by 4, output tokens the reply text's, rounded up.
 *
 * @param turns - The replies, in the order the model gives them.
 * @param options - The `provider` and `modelId` the model reports.
 * @returns The model; pass it as an agent's `model`, or to `generateText` / `streamText`.
 * @throws {ScriptExhaustedError} From a call made after the last turn was used.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: "findEmptySlot", args: { durationMinutes: 30 } }] },
 *   "The slot is booked.",
 * ]);
 * const agent = new Agent({ role: "calendar_assistant", systemPrompt, tools: [findEmptySlot], model });
 * // … run a job, then:
 * assert.equal(model.requests.length, 2);
 * assert.match(model.requests[0].system, /calendar/);
 * ```
 */
export function scriptedModel(turns: readonly ScriptedTurn[], options?: ScriptedModelOptions): ScriptedModel {
  return new ScriptedModel(turns, options);
}

/** The job a call is for, as STATEK passes it (`providerOptions.statek.jobId`). */
function jobIdOf(options: LanguageModelV4CallOptions): string | undefined {
  const jobId = options.providerOptions?.[STATEK_PROVIDER_OPTIONS]?.["jobId"];
  return typeof jobId === "string" ? jobId : undefined;
}

/** A scripted turn in v4 result form, shared by `doGenerate` and `doStream`. */
interface ScriptedReply {
  content: LanguageModelV4Content[];
  finishReason: LanguageModelV4GenerateResult["finishReason"];
  usage: LanguageModelV4Usage;
  responseId: string;
}

/**
 * The request as recorded, and the characters of the prompt's text: system messages and text parts (what a
 * tokenizer would mostly see), for estimating input tokens.
 */
function recordRequest(options: LanguageModelV4CallOptions, recorder: ConversationRecorder): { request: ScriptedRequest; textLength: number } {
  const system: string[] = [];
  const conversation: ModelMessage[] = [];
  let systemLength = 0;
  for (const message of options.prompt) {
    if (message.role === "system") {
      system.push(message.content);
      systemLength += message.content.length;
    } else {
      conversation.push(message);
    }
  }
  const { copies: messages, textLength } = recorder.record(conversation);
  const tools: ModelToolPayload[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type !== "function") continue;
    tools.push({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: clonePromptValue(tool.inputSchema as Record<string, unknown>),
    });
  }
  const settings: ModelCallSettings = {};
  for (const key of MODEL_OPTION_KEYS) if (options[key] !== undefined) (settings as Record<string, unknown>)[key] = options[key];
  const request: ScriptedRequest = { system: system.join("\n\n"), messages, tools, ...(Object.keys(settings).length ? { settings } : {}) };
  return { request, textLength: systemLength + textLength };
}

function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

function toV4Usage({ inputTokens, cachedInputTokens, outputTokens }: ModelUsage): LanguageModelV4Usage {
  const reported = (value: number | null) => value ?? undefined;
  return {
    inputTokens: {
      total: reported(inputTokens),
      noCache: inputTokens === null ? undefined : Math.max(0, inputTokens - (cachedInputTokens ?? 0)),
      cacheRead: reported(cachedInputTokens),
      cacheWrite: inputTokens === null ? undefined : 0,
    },
    outputTokens: { total: reported(outputTokens), text: reported(outputTokens), reasoning: outputTokens === null ? undefined : 0 },
  };
}
