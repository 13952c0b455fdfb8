/**
 * @module
 * `MODEL` strings: `provider/model`, where the model part may itself contain `/`
 * (`openrouter/openai/gpt-5-mini` is the model `openai/gpt-5-mini` of the provider `openrouter`).
 */
import { InvalidModelStringError } from "../errors/invalid-model-string-error.ts";

/** A parsed `MODEL` string. */
export interface ModelString {
  /** The provider name, lower-cased (`openai`). */
  provider: string;
  /** The provider's model id, as written (`gpt-5-mini`, `openai/gpt-5-mini`). */
  modelId: string;
}

/** Model id prefixes that say which provider was probably meant, for the error message. */
const LIKELY_PROVIDERS: ReadonlyArray<[RegExp, string]> = [
  [/^(gpt-|o\d|chatgpt-)/i, "openai"],
  [/^claude-/i, "anthropic"],
  [/^gemini-/i, "google"],
];

/**
 * Parses `provider/model`.
 *
 * @throws {InvalidModelStringError} For an empty string, a missing provider or a missing model id.
 *
 * @example
 * ```ts
 * parseModelString("openrouter/openai/gpt-5-mini"); // { provider: "openrouter", modelId: "openai/gpt-5-mini" }
 * ```
 */
export function parseModelString(model: string): ModelString {
  if (typeof model !== "string" || model.trim() === "") {
    throw new InvalidModelStringError({ model: String(model), reason: "is empty; write it as provider/model, e.g. openai/gpt-5-mini" });
  }
  const text = model.trim();
  const slash = text.indexOf("/");
  if (slash < 0) {
    const likely = LIKELY_PROVIDERS.find(([pattern]) => pattern.test(text))?.[1];
    const hint = likely ? `'${likely}/${text}'` : "provider/model, e.g. 'openai/gpt-5-mini'";
    throw new InvalidModelStringError({ model: text, reason: `names no provider; write it as ${hint}` });
  }
  const provider = text.slice(0, slash).trim().toLowerCase();
  const modelId = text.slice(slash + 1).trim();
  if (!provider) throw new InvalidModelStringError({ model: text, reason: "names no provider before the '/'" });
  if (!modelId) throw new InvalidModelStringError({ model: text, reason: `names provider '${provider}' but no model after the '/'` });
  return { provider, modelId };
}
