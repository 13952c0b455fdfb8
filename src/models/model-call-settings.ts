/**
 * @module
 * Options of one model call that a job's settings choose: from the `MODEL` string's options segment
 * (`openai/gpt-5/reasoning=high&temperature=0.2`) and the `TEMPERATURE` setting. They are passed to the AI SDK
 * model as its call options; `reasoning` needs a model of specification v4 (every provider package STATEK
 * supports), which turns it into the provider's own setting.
 */

/** The reasoning efforts the AI SDK knows. */
export const REASONING_EFFORTS = ["provider-default", "none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/** Options of a model call. */
export interface ModelCallSettings {
  /** Sampling temperature, 0–1. */
  temperature?: number;
  /** How much the model reasons before answering (v4 models). */
  reasoning?: (typeof REASONING_EFFORTS)[number];
  /** The most tokens the reply may have. */
  maxOutputTokens?: number;
  /** Nucleus sampling, 0–1. */
  topP?: number;
  /** Sample among the k most likely tokens. */
  topK?: number;
  /** A seed for providers that sample reproducibly. */
  seed?: number;
  /** Penalties for repeating, -2–2. */
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** The option keys a `MODEL` string may set. */
export const MODEL_OPTION_KEYS = [
  "reasoning", "temperature", "maxOutputTokens", "topP", "topK", "seed", "presencePenalty", "frequencyPenalty",
] as const satisfies ReadonlyArray<keyof ModelCallSettings>;

/** Reads a `TEMPERATURE` value (a number, or a string of one) in 0–1; a `TypeError` says what is wrong. */
export function checkTemperature(value: unknown, label = "TEMPERATURE"): number {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new TypeError(`${label} must be a number from 0 to 1, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** Settings from option texts (`{ temperature: "0.2" }`), each checked; throws an `Error` naming the first bad one. */
export function checkModelCallSettings(raw: Readonly<Record<string, string>>): ModelCallSettings {
  const settings: ModelCallSettings = {};
  const number = (key: string, min: number, max: number, integer = false): number => {
    const value = Number(raw[key]);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw new Error(`gives the option '${key}' the value '${raw[key]}' (expected ${integer ? "an integer" : "a number"} from ${min} to ${max})`);
    }
    return value;
  };
  for (const key of Object.keys(raw)) {
    switch (key) {
      case "reasoning": {
        const effort = raw[key]!.toLowerCase();
        if (!(REASONING_EFFORTS as readonly string[]).includes(effort)) {
          throw new Error(`gives the option 'reasoning' the value '${raw[key]}' (expected ${REASONING_EFFORTS.join(", ")})`);
        }
        settings.reasoning = effort as ModelCallSettings["reasoning"];
        break;
      }
      case "temperature": settings.temperature = number(key, 0, 1); break;
      case "topP": settings.topP = number(key, 0, 1); break;
      case "maxOutputTokens": settings.maxOutputTokens = number(key, 1, Number.MAX_SAFE_INTEGER, true); break;
      case "topK": settings.topK = number(key, 1, Number.MAX_SAFE_INTEGER, true); break;
      case "seed": settings.seed = number(key, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true); break;
      case "presencePenalty": settings.presencePenalty = number(key, -2, 2); break;
      case "frequencyPenalty": settings.frequencyPenalty = number(key, -2, 2); break;
      default: throw new Error(`has an unknown option '${key}' (known: ${MODEL_OPTION_KEYS.join(", ")})`);
    }
  }
  return settings;
}
