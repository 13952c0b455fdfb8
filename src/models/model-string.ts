/**
 * @module
 * `MODEL` strings: `provider/model[/key=value&…]`, where the model part may itself contain `/`
 * (`openrouter/openai/gpt-5-mini` is the model `openai/gpt-5-mini` of the provider `openrouter`). A last
 * segment holding `=` is not part of the model id: it sets options of the call (`openai/gpt-5/reasoning=high`),
 * which never reach the provider as part of the id. A string without a provider takes the default one (the
 * job's `PROVIDER` setting), when there is one.
 */
import { InvalidModelStringError } from "../errors/invalid-model-string-error.ts";
import { checkModelCallSettings, MODEL_OPTION_KEYS, type ModelCallSettings } from "./model-call-settings.ts";

/** A parsed `MODEL` string. */
export interface ModelString {
  /** The provider name, lower-cased (`openai`). */
  provider: string;
  /** The provider's model id, as written (`gpt-5-mini`, `openai/gpt-5-mini`), without the options segment. */
  modelId: string;
  /** The call options of the last segment (`reasoning=high&temperature=0.2`), when it has one. */
  options?: ModelCallSettings;
}

/** Model id prefixes that say which provider was probably meant, for the error message. */
const LIKELY_PROVIDERS: ReadonlyArray<[RegExp, string]> = [
  [/^(gpt-|o\d|chatgpt-)/i, "openai"],
  [/^claude-/i, "anthropic"],
  [/^gemini-/i, "google"],
];

/**
 * Parses `provider/model[/key=value&…]`; `defaultProvider` is used when the string names none.
 *
 * @throws {InvalidModelStringError} For an empty string, a missing provider or model id, or options that are
 * malformed, unknown or out of range.
 *
 * @example
 * ```ts
 * parseModelString("openrouter/openai/gpt-5-mini"); // { provider: "openrouter", modelId: "openai/gpt-5-mini" }
 * parseModelString("openai/gpt-5/reasoning=high"); // { provider: "openai", modelId: "gpt-5", options: { reasoning: "high" } }
 * parseModelString("gpt-5-mini", "openai"); // { provider: "openai", modelId: "gpt-5-mini" }
 * ```
 */
export function parseModelString(model: string, defaultProvider?: string): ModelString {
  if (typeof model !== "string" || model.trim() === "") {
    throw new InvalidModelStringError({ model: String(model), reason: "is empty; write it as provider/model, e.g. openai/gpt-5-mini" });
  }
  const text = model.trim();
  let path = text;
  let options: ModelCallSettings | undefined;
  const last = text.lastIndexOf("/");
  const tail = last < 0 ? text : text.slice(last + 1);
  if (tail.includes("=")) {
    if (last < 0) throw new InvalidModelStringError({ model: text, reason: "has options but no model before them; write it as provider/model/key=value" });
    options = parseOptions(text, tail);
    path = text.slice(0, last).trim();
  }
  const slash = path.indexOf("/");
  const fallback = defaultProvider?.trim().toLowerCase();
  if (slash < 0) {
    if (fallback) return withOptions({ provider: fallback, modelId: path }, options);
    const likely = LIKELY_PROVIDERS.find(([pattern]) => pattern.test(path))?.[1];
    const hint = likely ? `'${likely}/${path}'` : "provider/model, e.g. 'openai/gpt-5-mini'";
    throw new InvalidModelStringError({ model: text, reason: `names no provider; write it as ${hint} (or set the PROVIDER setting)` });
  }
  const provider = path.slice(0, slash).trim().toLowerCase();
  const modelId = path.slice(slash + 1).trim();
  if (!provider) throw new InvalidModelStringError({ model: text, reason: "names no provider before the '/'" });
  if (!modelId) throw new InvalidModelStringError({ model: text, reason: `names provider '${provider}' but no model after the '/'` });
  return withOptions({ provider, modelId }, options);
}

function withOptions(parsed: ModelString, options: ModelCallSettings | undefined): ModelString {
  return options ? { ...parsed, options } : parsed;
}

/** `key=value&key=value`, each key known and each value in range. */
function parseOptions(model: string, segment: string): ModelCallSettings {
  const fail = (reason: string): never => {
    throw new InvalidModelStringError({ model, reason });
  };
  const raw: Record<string, string> = {};
  for (const pair of segment.split("&")) {
    const equals = pair.indexOf("=");
    if (equals <= 0 || pair.indexOf("=", equals + 1) >= 0) fail(`has a malformed option '${pair}' (options are key=value pairs joined by &)`);
    const key = decode(pair.slice(0, equals).trim(), fail);
    const value = decode(pair.slice(equals + 1).trim(), fail);
    if (!(MODEL_OPTION_KEYS as readonly string[]).includes(key)) fail(`has an unknown option '${key}' (known: ${MODEL_OPTION_KEYS.join(", ")})`);
    if (Object.hasOwn(raw, key)) fail(`sets the option '${key}' twice`);
    if (value === "") fail(`gives the option '${key}' no value`);
    raw[key] = value;
  }
  try {
    return checkModelCallSettings(raw);
  } catch (error) {
    return fail((error as Error).message);
  }
}

function decode(text: string, fail: (reason: string) => never): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return fail(`has an option that is not valid URL query syntax ('${text}')`);
  }
}
