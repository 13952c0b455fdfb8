/**
 * @module
 * Token counts that are known: what prices and limits are computed from. A reply's {@link ModelUsage} may
 * lack counts its provider did not report; only a usage with input and output both known has counts.
 */
import type { ModelUsage } from "./model-request.ts";

/** Input, cached input (included in input) and output tokens, all known. */
export interface TokenCounts {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

/**
 * The counts of a usage whose input and output were both reported (a missing cache figure counts as no cache),
 * else `undefined`.
 *
 * @example
 * ```ts
 * knownCounts({ inputTokens: 10, cachedInputTokens: null, outputTokens: 2 }); // { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2 }
 * knownCounts({ inputTokens: null, cachedInputTokens: null, outputTokens: null }); // undefined
 * ```
 */
export function knownCounts(usage: ModelUsage): TokenCounts | undefined {
  if (usage.inputTokens === null || usage.outputTokens === null) return undefined;
  return { inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens ?? 0, outputTokens: usage.outputTokens };
}
