/**
 * @module
 * The models STATEK can call: any AI SDK language model of specification v2, v3 or v4, as implemented by the
 * provider packages (`@ai-sdk/openai`, `@ai-sdk/anthropic`, …) and by `scriptedModel`. Core code sees only
 * this spec, never a provider package.
 */
import type { LanguageModelV2, LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";

/**
 * An AI SDK language model of a specification version STATEK can call. `generateReply` reads its
 * `specificationVersion` and adapts the call (it streams: `doStream`); any other version is an
 * `UnsupportedModelVersionError`.
 *
 * @example
 * ```ts
 * import { openai } from "@ai-sdk/openai";
 * const model: LanguageModel = openai("gpt-5-mini");
 * ```
 */
export type LanguageModel = LanguageModelV4 | LanguageModelV3 | LanguageModelV2;
