/**
 * @module
 * The providers every model registry knows: OpenAI (Chat Completions and Responses), Anthropic, Google, OpenRouter, OpenAI-compatible local
 * servers (Ollama, vLLM, LM Studio) and a few OpenAI-compatible hosted APIs. This is the only place that
 * knows provider packages' factories; it reaches them through the package given to `create`, never by a
 * static import, so a provider package is needed only when a `MODEL` string uses it.
 */
import type { ModelProvider } from "./model-provider.ts";

/** An OpenAI-compatible chat-completions API reached through `@ai-sdk/openai-compatible`. */
function openAiCompatible(name: string, options: {
  apiKeyVariable: string;
  apiKeyRequired: boolean;
  baseUrlVariable: string;
  defaultBaseUrl: string;
}): ModelProvider {
  return {
    name,
    packageName: "@ai-sdk/openai-compatible",
    ...options,
    create: (module, { apiKey, baseURL, fetch }) => {
      const provider = module.createOpenAICompatible({
        name,
        baseURL,
        // Calls stream; without `stream_options.include_usage` these servers report no usage at all.
        includeUsage: true,
        ...(apiKey ? { apiKey } : {}),
        ...(fetch ? { fetch } : {}),
      });
      return (modelId: string) => provider.chatModel(modelId);
    },
  };
}

/**
 * OpenAI through `@ai-sdk/openai`, with one of its APIs: `chat` (Chat Completions) or `responses`. The names
 * are what the models report as their provider (`openai.responses/gpt-5-mini` in history), so a model name
 * read from a job can be used as a `MODEL` string.
 */
function openAi(name: string, api: "chat" | "responses"): ModelProvider {
  return {
    name,
    packageName: "@ai-sdk/openai",
    apiKeyVariable: "OPENAI_API_KEY",
    baseUrlVariable: "OPENAI_BASE_URL",
    create: (module, { apiKey, baseURL, fetch }) => {
      const provider = module.createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) });
      return (modelId: string) => provider[api](modelId);
    },
  };
}

/** The built-in providers, by `MODEL` prefix. */
export const BUILT_IN_PROVIDERS: readonly ModelProvider[] = [
  // `openai/` is Chat Completions: stateless (nothing stored at OpenAI) and the protocol every compatible
  // server speaks. `openai.responses/` is the Responses API, where reasoning models keep their reasoning items.
  openAi("openai", "chat"),
  openAi("openai.chat", "chat"),
  openAi("openai.responses", "responses"),
  {
    name: "anthropic",
    packageName: "@ai-sdk/anthropic",
    apiKeyVariable: "ANTHROPIC_API_KEY",
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    create: (module, { apiKey, baseURL, fetch }) => {
      const provider = module.createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) });
      return (modelId: string) => provider.languageModel(modelId);
    },
  },
  {
    name: "google",
    packageName: "@ai-sdk/google",
    apiKeyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
    baseUrlVariable: "GOOGLE_GENERATIVE_AI_BASE_URL",
    create: (module, { apiKey, baseURL, fetch }) => {
      const provider = module.createGoogleGenerativeAI({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) });
      return (modelId: string) => provider.languageModel(modelId);
    },
  },
  openAiCompatible("openrouter", {
    apiKeyVariable: "OPENROUTER_API_KEY", apiKeyRequired: true,
    baseUrlVariable: "OPENROUTER_BASE_URL", defaultBaseUrl: "https://openrouter.ai/api/v1",
  }),
  openAiCompatible("ollama", {
    apiKeyVariable: "OLLAMA_API_KEY", apiKeyRequired: false,
    baseUrlVariable: "OLLAMA_BASE_URL", defaultBaseUrl: "http://localhost:11434/v1",
  }),
  openAiCompatible("vllm", {
    apiKeyVariable: "VLLM_API_KEY", apiKeyRequired: false,
    baseUrlVariable: "VLLM_BASE_URL", defaultBaseUrl: "http://localhost:8000/v1",
  }),
  openAiCompatible("lmstudio", {
    apiKeyVariable: "LMSTUDIO_API_KEY", apiKeyRequired: false,
    baseUrlVariable: "LMSTUDIO_BASE_URL", defaultBaseUrl: "http://localhost:1234/v1",
  }),
  openAiCompatible("groq", {
    apiKeyVariable: "GROQ_API_KEY", apiKeyRequired: true,
    baseUrlVariable: "GROQ_BASE_URL", defaultBaseUrl: "https://api.groq.com/openai/v1",
  }),
  openAiCompatible("deepseek", {
    apiKeyVariable: "DEEPSEEK_API_KEY", apiKeyRequired: true,
    baseUrlVariable: "DEEPSEEK_BASE_URL", defaultBaseUrl: "https://api.deepseek.com/v1",
  }),
  openAiCompatible("xai", {
    apiKeyVariable: "XAI_API_KEY", apiKeyRequired: true,
    baseUrlVariable: "XAI_BASE_URL", defaultBaseUrl: "https://api.x.ai/v1",
  }),
  openAiCompatible("mistral", {
    apiKeyVariable: "MISTRAL_API_KEY", apiKeyRequired: true,
    baseUrlVariable: "MISTRAL_BASE_URL", defaultBaseUrl: "https://api.mistral.ai/v1",
  }),
];
