/**
 * @module
 * The bridge from STATEK's {@link ModelRequest} to any AI SDK language model and back: one non-streaming call,
 * its result normalised into a {@link ModelReply}. Retries and the `provider/model` registry live elsewhere.
 */
import type { LanguageModelV2FunctionTool, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { InvalidToolArgumentsError } from "../errors/invalid-tool-arguments-error.ts";
import { UnsupportedModelVersionError } from "../errors/unsupported-model-version-error.ts";
import type { LanguageModel } from "./language-model.ts";
import type { ModelReply, ModelRequest, ModelToolCall, ModelUsage } from "./model-request.ts";
import { toV2Prompt } from "./to-v2-prompt.ts";
import { toV3Prompt } from "./to-v3-prompt.ts";

/** The specification versions {@link generateReply} can call. */
const SUPPORTED_VERSIONS: readonly string[] = ["v2", "v3", "v4"];

/** A function tool as every specification version spells it (they differ only in the provider-options type). */
type FunctionTool = Omit<LanguageModelV2FunctionTool, "providerOptions"> & { strict?: boolean };

/** The content part fields STATEK reads; identical in v2, v3 and v4 results. */
type ContentPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; providerMetadata?: Record<string, Record<string, unknown>> }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean }
  | { type: string };

/**
 * Sends one request to a model and returns its normalised reply: text parts joined, tool-call arguments parsed,
 * reasoning kept with its provider metadata (for replaying it to the same provider), usage with missing
 * counts as 0. Works with models of specification v2, v3 and v4; the prompt is converted to the model's shape.
 *
 * @param model - An AI SDK language model, e.g. `openai("gpt-5-mini")` or `scriptedModel([...])`.
 * @param request - The system prompt, the conversation and the tools the model may call.
 * @returns The reply, with `modelName` as `provider/modelId`.
 * @throws {UnsupportedModelVersionError} When `model` is not a v2, v3 or v4 language model.
 * @throws {InvalidToolArgumentsError} When the model calls a tool with arguments that are not a JSON object.
 *
 * @example
 * ```ts
 * const reply = await generateReply(scriptedModel(["Hello!"]), {
 *   system: "You are terse.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
 *   tools: [],
 * });
 * reply.text; // "Hello!"
 * ```
 */
export async function generateReply(model: LanguageModel, request: ModelRequest): Promise<ModelReply> {
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
  // Only fields whose shape is the same in v2, v3 and v4, so one object serves every version.
  const options: { tools?: FunctionTool[]; toolChoice?: { type: "auto" }; abortSignal?: AbortSignal } = {
    ...(tools.length > 0 ? { tools, toolChoice: { type: "auto" } } : {}),
    ...(request.abortSignal === undefined ? {} : { abortSignal: request.abortSignal }),
  };
  const modelName = `${model.provider}/${model.modelId}`;

  switch (model.specificationVersion) {
    case "v4": {
      const result = await model.doGenerate({ ...options, prompt });
      return normaliseReply(result.content, nestedUsage(result.usage), unifiedFinishReason(result.finishReason), modelName);
    }
    case "v3": {
      const result = await model.doGenerate({ ...options, prompt: toV3Prompt(prompt) });
      return normaliseReply(result.content, nestedUsage(result.usage), unifiedFinishReason(result.finishReason), modelName);
    }
    case "v2": {
      const result = await model.doGenerate({ ...options, prompt: toV2Prompt(toV3Prompt(prompt)) });
      const usage = result.usage;
      return normaliseReply(result.content, {
        inputTokens: usage.inputTokens ?? 0,
        cachedInputTokens: usage.cachedInputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
      }, result.finishReason, modelName);
    }
  }
}

/** Token counts of v3 and v4 results, which nest them the same way. */
function nestedUsage(usage: {
  inputTokens: { total?: number | undefined; cacheRead?: number | undefined };
  outputTokens: { total?: number | undefined };
}): ModelReply["usage"] {
  return {
    inputTokens: usage.inputTokens.total ?? 0,
    cachedInputTokens: usage.inputTokens.cacheRead ?? 0,
    outputTokens: usage.outputTokens.total ?? 0,
  };
}

/** Throws {@link UnsupportedModelVersionError} unless `model` is a language model of a version we can call. */
function assertSupportedModel(model: unknown): asserts model is LanguageModel {
  if (typeof model !== "object" || model === null) {
    throw new UnsupportedModelVersionError({ version: undefined, received: describeValue(model) });
  }
  const { specificationVersion, provider, modelId, doGenerate } = model as Record<string, unknown>;
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
  // A provider (e.g. `openai` itself) has a specificationVersion too, but no doGenerate.
  if (typeof doGenerate !== "function") {
    throw new UnsupportedModelVersionError({
      version: undefined,
      received: `an object with specificationVersion "${specificationVersion}" but no doGenerate method (a provider instead of one of its models?)`,
    });
  }
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return `a string ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
  return `a ${typeof value}`;
}

/** v3 and v4 report `{ unified, raw }`; a model that still returns a bare string is read as that string. */
function unifiedFinishReason(finishReason: { unified: string } | string | undefined): string {
  if (typeof finishReason === "string") return finishReason;
  return finishReason?.unified ?? "other";
}

function normaliseReply(
  content: ReadonlyArray<ContentPart>,
  usage: ModelUsage,
  finishReason: string,
  modelName: string,
): ModelReply {
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const reasoning: ModelReply["reasoning"] = [];
  for (const part of content) {
    if (isPart(part, "text")) {
      texts.push(part.text);
    } else if (isPart(part, "reasoning")) {
      // Provider metadata (e.g. Anthropic's signature) must go back as provider options when the reasoning is replayed.
      reasoning.push(part.providerMetadata === undefined
        ? { text: part.text }
        : { text: part.text, providerOptions: part.providerMetadata });
    } else if (isPart(part, "tool-call")) {
      // Provider-executed calls (e.g. a hosted web search) already ran on the provider's side; ours to run are the rest.
      if (part.providerExecuted === true) continue;
      toolCalls.push({ id: part.toolCallId, name: part.toolName, args: parseToolArguments(part) });
    }
    // Other parts (sources, files, provider tool results) are not part of a STATEK reply.
  }
  return { text: texts.join(""), toolCalls, reasoning, usage, finishReason, modelName };
}

function isPart<T extends "text" | "reasoning" | "tool-call">(
  part: ContentPart,
  type: T,
): part is Extract<ContentPart, { type: T }> {
  return part.type === type;
}

function parseToolArguments(call: { toolCallId: string; toolName: string; input: unknown }): Record<string, unknown> {
  const { input } = call;
  if (isPlainObject(input)) return input; // the spec says a JSON string, but a parsed object is unambiguous
  const raw = typeof input === "string" ? input : String(input);
  // Providers send an empty string for a call of a tool without parameters.
  if (raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new InvalidToolArgumentsError({ toolName: call.toolName, toolCallId: call.toolCallId, rawArguments: raw, cause: error });
  }
  if (!isPlainObject(parsed)) {
    throw new InvalidToolArgumentsError({ toolName: call.toolName, toolCallId: call.toolCallId, rawArguments: raw });
  }
  return parsed;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
