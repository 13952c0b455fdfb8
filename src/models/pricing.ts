/**
 * @module
 * Model prices and what a call cost. Prices are USD per million tokens, keyed by `provider/model`
 * (`openai/gpt-5-mini`). The built-in table covers common models; applications add or override entries
 * from a JSON file or in code. Cached input tokens are priced at `cachedInput` (else `input`); cache writes
 * are priced as input.
 */
import type { TokenCounts } from "./token-counts.ts";

/** What one model costs, in USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Price of input tokens served from the provider's cache. @default input */
  cachedInput?: number;
  output: number;
}

/** Prices by `provider/model`. */
export type PricingTable = Readonly<Record<string, ModelPrice>>;

/**
 * Built-in prices (list prices of the providers' standard tiers, as published when this table was last
 * updated). Override any entry with your own table: prices change.
 */
export const BUILT_IN_PRICING: PricingTable = {
  "openai/gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "openai/gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "openai/gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "openai/gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "openai/gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "openai/gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "openai/gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "openai/gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "openai/o3": { input: 2, cachedInput: 0.5, output: 8 },
  "openai/o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  "anthropic/claude-opus-4-1": { input: 15, cachedInput: 1.5, output: 75 },
  "anthropic/claude-opus-4-5": { input: 5, cachedInput: 0.5, output: 25 },
  "anthropic/claude-sonnet-4-5": { input: 3, cachedInput: 0.3, output: 15 },
  "anthropic/claude-sonnet-4": { input: 3, cachedInput: 0.3, output: 15 },
  "anthropic/claude-sonnet-4-0": { input: 3, cachedInput: 0.3, output: 15 },
  "anthropic/claude-haiku-4-5": { input: 1, cachedInput: 0.1, output: 5 },
  "anthropic/claude-3-5-haiku": { input: 0.8, cachedInput: 0.08, output: 4 },
  "google/gemini-2.5-pro": { input: 1.25, cachedInput: 0.31, output: 10 },
  "google/gemini-2.5-flash": { input: 0.3, cachedInput: 0.075, output: 2.5 },
  "google/gemini-2.5-flash-lite": { input: 0.1, cachedInput: 0.025, output: 0.4 },
};

/** Date and version suffixes providers append to model ids (`-2025-08-07`, `-20250929`, `-latest`). */
const MODEL_SUFFIX = /(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)$/;

/**
 * The price of the model a reply came from, or `undefined` when the table has none.
 *
 * @param table - The pricing table.
 * @param modelName - `provider/modelId` as the AI SDK model reports itself (`openai.chat/gpt-5-mini-2025-08-07`).
 *   The provider is taken up to its first `.`; a date suffix of the id is ignored; for a model id that itself
 *   names a provider (`openrouter/openai/gpt-5-mini`) the inner name is tried too.
 *
 * @example
 * ```ts
 * findPrice(BUILT_IN_PRICING, "anthropic.messages/claude-sonnet-4-5-20250929"); // { input: 3, cachedInput: 0.3, output: 15 }
 * ```
 */
export function findPrice(table: PricingTable, modelName: string): ModelPrice | undefined {
  const slash = modelName.indexOf("/");
  if (slash < 0) return undefined;
  const provider = modelName.slice(0, slash).split(".")[0]!.toLowerCase();
  const modelId = modelName.slice(slash + 1);
  const candidates = [`${provider}/${modelId}`];
  if (modelId.includes("/")) candidates.push(modelId);
  for (const key of candidates) {
    const price = table[key] ?? table[key.replace(MODEL_SUFFIX, "")];
    if (price) return price;
  }
  return undefined;
}

/**
 * What a call with these token counts cost, in USD (only known counts have a cost: see `knownCounts`).
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 }, { input: 0.25, output: 2 }); // 0.25
 * ```
 */
export function costOf(usage: TokenCounts, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  return (uncached * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
}
