/**
 * @module
 * Everything about calling models that an application configures once, in `Statek.open({ models })`: where
 * keys come from, extra providers, retries and timeouts, and prices.
 */
import { checkPricing, loadPricingFile } from "./load-pricing.ts";
import type { ModelProvider } from "./model-provider.ts";
import { createModelRegistry, type ModelRegistry } from "./model-registry.ts";
import { BUILT_IN_PRICING, type PricingTable } from "./pricing.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.ts";

/** What `Statek.open({ models })` accepts. */
export interface ModelOptions extends Partial<RetryPolicy> {
  /** Where API keys, base URLs and `STATEK_PRICING_FILE` are read from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Providers besides the built-in ones (a provider with a built-in name replaces it). */
  providers?: readonly ModelProvider[];
  /** The `fetch` provider packages use. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /**
   * Prices added to the built-in table (and to `STATEK_PRICING_FILE`, when that is set): a JSON file path or
   * entries. Later entries win.
   */
  pricing?: string | PricingTable;
}

/** The resolved settings a step calls models with. */
export interface ModelSettings {
  registry: ModelRegistry;
  retry: RetryPolicy;
  pricing: PricingTable;
}

/**
 * Resolves {@link ModelOptions}: builds the registry and reads the pricing files.
 *
 * @throws {InvalidPricingError} When a pricing file or entry is not valid.
 */
export function createModelSettings(options: ModelOptions = {}): ModelSettings {
  const env = options.env ?? process.env;
  const { env: _env, providers, fetch, pricing, ...retry } = options;
  let table: PricingTable = BUILT_IN_PRICING;
  const file = env.STATEK_PRICING_FILE;
  if (file) table = { ...table, ...loadPricingFile(file) };
  if (typeof pricing === "string") table = { ...table, ...loadPricingFile(pricing) };
  else if (pricing !== undefined) table = { ...table, ...checkPricing(pricing) };
  return {
    registry: createModelRegistry({ env, ...(providers ? { providers } : {}), ...(fetch ? { fetch } : {}) }),
    retry: { ...DEFAULT_RETRY_POLICY, ...withoutUndefined(retry) },
    pricing: table,
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
