/**
 * @module
 * Token usage and cost of one model call as the CLI and the UI show it: `1,200 in (1,024 cached) · 40 out ·
 * $0.000181`, and `usage unknown` for a call whose provider did not report it (never a made-up 0).
 */
import { formatCost } from "../models/format-cost.ts";

/** The usage counts of one call; `null` is a count the provider did not report, a missing one reads as 0. */
export interface UsageFields {
  inputTokens?: unknown;
  cachedInputTokens?: unknown;
  outputTokens?: unknown;
  cost?: unknown;
}

/**
 * `1,200 in (1,024 cached) · 40 out · $0.000181` (the cached part when there is any, the cost when known);
 * `usage unknown` when neither count was reported, `input unknown` / `output unknown` for one of them.
 */
export function formatUsage(usage: UsageFields, cost: unknown = usage.cost): string {
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  const unknown = (value: unknown) => value === null;
  const parts: string[] = [];
  if (unknown(usage.inputTokens) && unknown(usage.outputTokens)) parts.push("usage unknown");
  else {
    const cached = count(usage.cachedInputTokens);
    parts.push(unknown(usage.inputTokens) ? "input unknown" : `${count(usage.inputTokens).toLocaleString("en-US")} in${cached ? ` (${cached.toLocaleString("en-US")} cached)` : ""}`);
    parts.push(unknown(usage.outputTokens) ? "output unknown" : `${count(usage.outputTokens).toLocaleString("en-US")} out`);
  }
  if (typeof cost === "number") parts.push(formatCost(cost));
  return parts.join(" · ");
}
