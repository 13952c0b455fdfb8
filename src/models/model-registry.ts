/**
 * @module
 * The model registry: resolves `MODEL` strings (`openai/gpt-5-mini`, `anthropic/claude-sonnet-4-5`,
 * `ollama/qwen3`) to AI SDK language models, reading keys and base URLs from the environment it is given.
 * Provider packages are imported on first use; a missing package or key is an error naming what to install
 * or set. Resolved models are cached per string.
 */
import { LoadApiKeyError } from "../errors/load-api-key-error.ts";
import { LoadProviderPackageError } from "../errors/load-provider-package-error.ts";
import { NoSuchProviderError } from "../errors/no-such-provider-error.ts";
import { BUILT_IN_PROVIDERS } from "./built-in-providers.ts";
import { withErrorBodies } from "./error-body-fetch.ts";
import type { LanguageModel } from "./language-model.ts";
import type { ModelProvider } from "./model-provider.ts";
import { parseModelString } from "./model-string.ts";

/** What {@link createModelRegistry} accepts. */
export interface ModelRegistryOptions {
  /** Where API keys and base URLs are read from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** More providers; one with the name of a built-in provider replaces it. */
  providers?: readonly ModelProvider[];
  /** The `fetch` provider packages use. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/** Resolves `MODEL` strings to language models. */
export interface ModelRegistry {
  /**
   * The model a `MODEL` string names (its options segment, if any, is left to the caller: it never becomes part
   * of the model id). `defaultProvider` (the job's `PROVIDER`) is used for a string that names no provider.
   *
   * @throws {InvalidModelStringError} For a string that is not `provider/model`.
   * @throws {NoSuchProviderError} For an unknown provider.
   * @throws {LoadProviderPackageError} When the provider's package is not installed.
   * @throws {LoadApiKeyError} When the provider's key variable is not set.
   */
  resolve(model: string, options?: { defaultProvider?: string }): Promise<LanguageModel>;
  /** The provider names it knows, sorted. */
  readonly providerNames: readonly string[];
}

/**
 * Creates a model registry with the built-in providers and any given ones.
 *
 * @example
 * ```ts
 * const registry = createModelRegistry({ env: { OPENAI_API_KEY: "sk-…" } });
 * const model = await registry.resolve("openai/gpt-5-mini");
 * ```
 */
export function createModelRegistry(options: ModelRegistryOptions = {}): ModelRegistry {
  const env = options.env ?? process.env;
  const providers = new Map<string, ModelProvider>();
  for (const provider of [...BUILT_IN_PROVIDERS, ...(options.providers ?? [])]) providers.set(provider.name.toLowerCase(), provider);
  const factories = new Map<string, Promise<(modelId: string) => LanguageModel>>();
  const models = new Map<string, LanguageModel>();

  const factoryFor = (provider: ModelProvider, model: string) => {
    let factory = factories.get(provider.name);
    if (!factory) {
      factory = loadFactory(provider, model, env, options.fetch);
      factories.set(provider.name, factory);
      // A failed load (package not installed yet) is retried on the next resolve, not remembered.
      factory.catch(() => factories.delete(provider.name));
    }
    return factory;
  };

  return {
    providerNames: [...providers.keys()].sort(),
    async resolve(model: string, resolveOptions: { defaultProvider?: string } = {}): Promise<LanguageModel> {
      const { provider: name, modelId } = parseModelString(model, resolveOptions.defaultProvider);
      const key = `${name}/${modelId}`;
      const cached = models.get(key);
      if (cached) return cached;
      const provider = providers.get(name);
      if (!provider) throw new NoSuchProviderError({ model, provider: name, knownProviders: [...providers.keys()].sort() });
      const required = provider.apiKeyRequired ?? provider.apiKeyVariable !== undefined;
      if (required && provider.apiKeyVariable && !env[provider.apiKeyVariable]) {
        throw new LoadApiKeyError({ model, variable: provider.apiKeyVariable });
      }
      const create = await factoryFor(provider, model);
      const resolved = create(modelId);
      models.set(key, resolved);
      return resolved;
    },
  };
}

async function loadFactory(
  provider: ModelProvider,
  model: string,
  env: Readonly<Record<string, string | undefined>>,
  fetch: typeof globalThis.fetch | undefined,
): Promise<(modelId: string) => LanguageModel> {
  let module: unknown;
  try {
    module = await import(provider.packageName);
  } catch (error) {
    throw new LoadProviderPackageError({ model, packageName: provider.packageName, cause: error });
  }
  const override = provider.baseUrlVariable ? env[provider.baseUrlVariable] : undefined;
  return provider.create(module, {
    apiKey: provider.apiKeyVariable ? env[provider.apiKeyVariable] || undefined : undefined,
    baseURL: override || provider.defaultBaseUrl,
    // Gateways such as OpenRouter answer some failures with status 200 and an error body.
    fetch: withErrorBodies(fetch ?? globalThis.fetch),
  });
}
