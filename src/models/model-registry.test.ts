import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  InvalidModelStringError, LoadApiKeyError, LoadProviderPackageError, NoSuchProviderError,
} from "../index.ts";
import { createModelRegistry, parseModelString } from "./index.ts";

describe("MODEL strings", () => {
  it("splits provider/model at the first slash; the model id may hold more slashes", () => {
    assert.deepEqual(parseModelString("openai/gpt-5-mini"), { provider: "openai", modelId: "gpt-5-mini" });
    assert.deepEqual(parseModelString(" OpenRouter/openai/gpt-5-mini "), { provider: "openrouter", modelId: "openai/gpt-5-mini" });
  });

  it("refuses strings without a provider or a model, suggesting the provider when it can", () => {
    assert.throws(() => parseModelString("gpt-5-mini"), { name: "InvalidModelStringError", message: `MODEL "gpt-5-mini" names no provider; write it as 'openai/gpt-5-mini' (or set the PROVIDER setting)` });
    assert.throws(() => parseModelString("claude-sonnet-4-5"), /write it as 'anthropic\/claude-sonnet-4-5'/);
    assert.throws(() => parseModelString("qwen3"), /names no provider; write it as provider\/model, e.g. 'openai\/gpt-5-mini'/);
    assert.throws(() => parseModelString("openai/"), /names provider 'openai' but no model after the '\/'/);
    assert.throws(() => parseModelString(""), InvalidModelStringError);
  });
});

describe("the model registry", () => {
  it("resolves the built-in providers to real AI SDK models, reading keys and base URLs from its environment", async () => {
    const registry = createModelRegistry({ env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GOOGLE_GENERATIVE_AI_API_KEY: "k", OPENROUTER_API_KEY: "k" } });
    const cases: Array<[string, string, string]> = [
      ["openai/gpt-5-mini", "openai.chat", "gpt-5-mini"],
      ["openai.chat/gpt-5-mini", "openai.chat", "gpt-5-mini"],
      ["openai.responses/gpt-5-mini", "openai.responses", "gpt-5-mini"],
      ["anthropic/claude-sonnet-4-5", "anthropic.messages", "claude-sonnet-4-5"],
      ["google/gemini-2.5-flash", "google.generative-ai", "gemini-2.5-flash"],
      ["openrouter/openai/gpt-5-mini", "openrouter.chat", "openai/gpt-5-mini"],
      ["ollama/qwen3", "ollama.chat", "qwen3"],
      ["vllm/meta-llama/Llama-3.1-8B-Instruct", "vllm.chat", "meta-llama/Llama-3.1-8B-Instruct"],
      ["lmstudio/qwen3-8b", "lmstudio.chat", "qwen3-8b"],
    ];
    for (const [name, provider, modelId] of cases) {
      const model = await registry.resolve(name);
      assert.equal(model.specificationVersion, "v4", name);
      assert.deepEqual([model.provider, model.modelId], [provider, modelId], name);
      assert.equal(typeof model.doStream, "function");
    }
    assert.equal(await registry.resolve("openai/gpt-5-mini"), await registry.resolve("openai/gpt-5-mini"), "models are cached per string");
    assert.deepEqual(registry.providerNames.slice(0, 4), ["anthropic", "deepseek", "google", "groq"]);
  });

  it("names the variable to set when a provider's key is missing; local servers need none", async () => {
    const registry = createModelRegistry({ env: {} });
    await assert.rejects(registry.resolve("openai/gpt-5-mini"), (error: unknown) => {
      assert.ok(error instanceof LoadApiKeyError);
      assert.equal(error.message, "MODEL 'openai/gpt-5-mini' needs an API key: set OPENAI_API_KEY");
      assert.equal(error.variable, "OPENAI_API_KEY");
      return true;
    });
    await assert.rejects(registry.resolve("anthropic/claude-haiku-4-5"), /set ANTHROPIC_API_KEY/);
    await assert.rejects(registry.resolve("openrouter/openai/gpt-5-mini"), /set OPENROUTER_API_KEY/);
    assert.equal((await registry.resolve("ollama/qwen3")).provider, "ollama.chat");
  });

  it("names the known providers for an unknown one", async () => {
    await assert.rejects(createModelRegistry({ env: {} }).resolve("acme/m1"), (error: unknown) => {
      assert.ok(error instanceof NoSuchProviderError);
      assert.match(error.message, /^MODEL 'acme\/m1': no provider 'acme' is registered \(known: anthropic, deepseek, google, groq, lmstudio, mistral, ollama, openai, openai.chat, openai.responses, openrouter, vllm, xai\)/);
      return true;
    });
  });

  it("loads a provider package on first use and names the package to install when it is missing", async () => {
    const registry = createModelRegistry({
      env: { ACME_API_KEY: "k" },
      providers: [{ name: "acme", packageName: "@statek-test/not-installed-provider", apiKeyVariable: "ACME_API_KEY", create: () => () => { throw new Error("unreachable"); } }],
    });
    await assert.rejects(registry.resolve("acme/m1"), (error: unknown) => {
      assert.ok(error instanceof LoadProviderPackageError);
      assert.equal(error.message, "MODEL 'acme/m1' needs the package @statek-test/not-installed-provider: npm install @statek-test/not-installed-provider");
      return true;
    });
  });

  it("takes providers of the application, which may replace a built-in one", async () => {
    const registry = createModelRegistry({
      env: { LOCAL_URL: "http://127.0.0.1:9/v1" },
      providers: [{
        name: "openai", packageName: "@ai-sdk/openai-compatible", baseUrlVariable: "LOCAL_URL",
        create: (module, settings) => {
          const provider = module.createOpenAICompatible({ name: "local", baseURL: settings.baseURL });
          return (modelId: string) => provider.chatModel(modelId);
        },
      }],
    });
    assert.equal((await registry.resolve("openai/anything")).provider, "local.chat");
  });
});
