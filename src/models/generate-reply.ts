/**
 * @module
 * The bridge from STATEK's {@link ModelRequest} to any AI SDK language model and back: one streamed call
 * (`doStream`), read part by part into a {@link ModelReply} while its text is handed to an observer as it
 * arrives. Retries and the `provider/model` registry live elsewhere.
 */
import type { LanguageModelV2FunctionTool, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { UnsupportedModelVersionError } from "../errors/unsupported-model-version-error.ts";
import type { LanguageModel } from "./language-model.ts";
import type { ModelReply, ModelRequest, ReplyObserver } from "./model-request.ts";
import { ReplyStreamReader, type StreamPart } from "./reply-stream-reader.ts";
import { toV2Prompt } from "./to-v2-prompt.ts";
import { toV3Prompt } from "./to-v3-prompt.ts";

/** The specification versions {@link generateReply} can call. */
const SUPPORTED_VERSIONS: readonly string[] = ["v2", "v3", "v4"];

/** A function tool as every specification version spells it (they differ only in the provider-options type). */
type FunctionTool = Omit<LanguageModelV2FunctionTool, "providerOptions"> & { strict?: boolean };

/** The `providerOptions` key under which a model call carries STATEK's own facts (the job's id). */
export const STATEK_PROVIDER_OPTIONS = "statek";

/**
 * Sends one request to a model and reads its streamed reply: text parts joined (inline `<think>` blocks moved
 * to reasoning), tool-call arguments parsed (arguments that are not a JSON object are kept, marked
 * `invalidArguments`), reasoning and the order of the parts kept with their provider metadata (for replaying
 * them to the same provider), the finish reason, and the usage (a count the provider did not report is `null`).
 * Works with models of specification v2, v3 and v4; the prompt is converted to the model's shape.
 *
 * @param model - An AI SDK language model, e.g. `openai("gpt-5-mini")` or `scriptedModel([...])`.
 * @param request - The system prompt, the conversation and the tools the model may call.
 * @param observer - Hears the text as it arrives and the usage as the provider reports it.
 * @returns The reply, with `modelName` as `provider/modelId`.
 * @throws {UnsupportedModelVersionError} When `model` is not a v2, v3 or v4 language model.
 * @throws {ModelProviderError} When the stream carries the provider's error (`isRetryable` says what to do).
 * @throws {IncompleteReplyError} When the stream ends before the reply is finished (retryable).
 *
 * @example
 * ```ts
 * const reply = await generateReply(scriptedModel(["Hello!"]), {
 *   system: "You are terse.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
 *   tools: [],
 * }, { onTextDelta: (delta) => process.stdout.write(delta) });
 * reply.text; // "Hello!"
 * ```
 */
export async function generateReply(model: LanguageModel, request: ModelRequest, observer: ReplyObserver = {}): Promise<ModelReply> {
  assertSupportedModel(model);
  // An empty system text is left out: some providers (Anthropic) reject empty text blocks.
  const prompt: LanguageModelV4Prompt = request.system === ""
    ? [...request.messages]
    : [{ role: "system", content: request.system }, ...request.messages];
  const tools: FunctionTool[] = request.tools.map(({ name, description, inputSchema, strict }) => ({
    type: "function",
    name,
    description,
    inputSchema,
    // v2 has no `strict`; providers of that version ignore it.
    ...(strict === undefined ? {} : { strict }),
  }));
  // Only fields whose shape is the same in v2, v3 and v4, so one object serves every version. Raw chunks let
  // the reader see usage a provider reports before its last part (a reply abandoned at the timeout).
  const { reasoning, ...sampling } = request.settings ?? {};
  const options: {
    tools?: FunctionTool[]; toolChoice?: { type: "auto" }; abortSignal?: AbortSignal; includeRawChunks: true; providerOptions?: Record<string, Record<string, string>>;
  } & typeof sampling = {
    ...sampling,
    ...(tools.length > 0 ? { tools, toolChoice: { type: "auto" } } : {}),
    ...(request.abortSignal === undefined ? {} : { abortSignal: request.abortSignal }),
    ...(request.jobId === undefined ? {} : { providerOptions: { [STATEK_PROVIDER_OPTIONS]: { jobId: request.jobId } } }),
    includeRawChunks: true,
  };
  if (reasoning !== undefined && model.specificationVersion !== "v4") {
    throw new TypeError(`the model option reasoning=${reasoning} needs a model of specification v4; ${model.provider}/${model.modelId} is ${model.specificationVersion}`);
  }

  let stream: ReadableStream<unknown>;
  switch (model.specificationVersion) {
    case "v4":
      ({ stream } = await model.doStream({ ...options, ...(reasoning === undefined ? {} : { reasoning }), prompt }));
      break;
    case "v3":
      ({ stream } = await model.doStream({ ...options, prompt: toV3Prompt(prompt) }));
      break;
    case "v2":
      ({ stream } = await model.doStream({ ...options, prompt: toV2Prompt(toV3Prompt(prompt)) }));
      break;
  }
  const reader = new ReplyStreamReader(observer);
  // Leaving the loop early (an error part) cancels the stream, and with it the request.
  for await (const part of stream as AsyncIterable<StreamPart>) reader.read(part);
  return reader.reply(`${model.provider}/${model.modelId}`);
}

/** Throws {@link UnsupportedModelVersionError} unless `model` is a language model of a version we can call. */
function assertSupportedModel(model: unknown): asserts model is LanguageModel {
  if (typeof model !== "object" || model === null) {
    throw new UnsupportedModelVersionError({ version: undefined, received: describeValue(model) });
  }
  const { specificationVersion, provider, modelId, doStream } = model as Record<string, unknown>;
  const names = {
    provider: typeof provider === "string" ? provider : undefined,
    modelId: typeof modelId === "string" ? modelId : undefined,
  };
  if (typeof specificationVersion !== "string") {
    throw new UnsupportedModelVersionError({ version: undefined, received: "an object without specificationVersion" });
  }
  if (!SUPPORTED_VERSIONS.includes(specificationVersion)) {
    throw new UnsupportedModelVersionError({ version: specificationVersion, ...names });
  }
  // A provider (e.g. `openai` itself) has a specificationVersion too, but no doStream.
  if (typeof doStream !== "function") {
    throw new UnsupportedModelVersionError({
      version: undefined,
      received: `an object with specificationVersion "${specificationVersion}" but no doStream method (a provider instead of one of its models?)`,
    });
  }
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return `a string ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
  return `a ${typeof value}`;
}
