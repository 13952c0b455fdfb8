/**
 * @module
 * The contract of a model provider in the registry: how a `MODEL` prefix (`openai`, `ollama`, …) becomes an AI
 * SDK language model. A provider names the npm package it needs (loaded on first use, so provider packages
 * stay optional), the environment variables of its key and base URL, and a factory.
 */
import type { LanguageModel } from "./language-model.ts";

/** Settings a provider's factory receives, read from the environment by the registry. */
export interface ProviderSettings {
  /** The API key, when the provider has one and it is set. */
  apiKey: string | undefined;
  /** The base URL: the environment's override, else the provider's default, else `undefined` (the package's own). */
  baseURL: string | undefined;
  /**
   * The `fetch` to use: the application's (or the global one), wrapped so that an error a gateway sends with
   * status 200 reaches the provider package as an HTTP error (see `withErrorBodies`).
   */
  fetch: typeof globalThis.fetch | undefined;
}

/**
 * A provider the model registry can resolve `MODEL` strings for.
 *
 * @example
 * ```ts
 * const together: ModelProvider = {
 *   name: "together",
 *   packageName: "@ai-sdk/openai-compatible",
 *   apiKeyVariable: "TOGETHER_API_KEY",
 *   baseUrlVariable: "TOGETHER_BASE_URL",
 *   defaultBaseUrl: "https://api.together.xyz/v1",
 *   create: (module, settings) => {
 *     const provider = module.createOpenAICompatible({ name: "together", ...settings });
 *     return (modelId) => provider.chatModel(modelId);
 *   },
 * };
 * ```
 */
export interface ModelProvider {
  /** The `MODEL` prefix, lower case. */
  name: string;
  /** The npm package to import (an optional peer dependency of STATEK). */
  packageName: string;
  /** The environment variable holding the API key. */
  apiKeyVariable?: string;
  /** Whether a call without a key is an error (local servers need none). @default true when apiKeyVariable is set */
  apiKeyRequired?: boolean;
  /** The environment variable overriding the base URL. */
  baseUrlVariable?: string;
  /** The base URL used when the variable is not set; `undefined` leaves the package's default. */
  defaultBaseUrl?: string;
  /** Builds the model factory from the imported package. Called once per registry. */
  create(module: any, settings: ProviderSettings): (modelId: string) => LanguageModel;
}
