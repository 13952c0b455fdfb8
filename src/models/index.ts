/**
 * @module
 * `statek/models`: helpers around models for applications that look further than `Statek.open({ models })` —
 * resolving a model string outside a `Statek`, the built-in providers and prices, what a call cost, and the
 * default retry policy. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";

/** Model strings and providers. */
export { createModelRegistry } from "./model-registry.ts";
export type { ModelRegistry, ModelRegistryOptions } from "./model-registry.ts";
export type { ModelProvider, ProviderSettings } from "./model-provider.ts";
export { BUILT_IN_PROVIDERS } from "./built-in-providers.ts";
export { parseModelString } from "./model-string.ts";
export type { ModelString } from "./model-string.ts";
export type { ModelOptions } from "./model-settings.ts";
export { MODEL_OPTION_KEYS, REASONING_EFFORTS } from "./model-call-settings.ts";
export type { ModelCallSettings } from "./model-call-settings.ts";

/** Retries. */
export { DEFAULT_RETRY_POLICY } from "./retry-policy.ts";
export type { RetryPolicy } from "./retry-policy.ts";

/** Prices and what a call cost. */
export { BUILT_IN_PRICING, costOf, findPrice } from "./pricing.ts";
export type { ModelPrice, PricingTable } from "./pricing.ts";
export { loadPricingFile } from "./load-pricing.ts";
