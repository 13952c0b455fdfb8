/**
 * @module
 * Token usage and cost as `statek show` prints them: `1,200 in (1,024 cached) · 40 out · $0.000181`.
 */
import { formatCost } from "../models/format-cost.ts";

/** The usage counts `statek show` reads; missing counts read as 0. */
export interface UsageFields {
  inputTokens?: unknown;
  cachedInputTokens?: unknown;
  outputTokens?: unknown;
  cost?: unknown;
}

/** `1,200 in (1,024 cached) · 40 out · $0.000181` (the cached part when there is any, the cost when known). */
export function formatModelUsage(usage: UsageFields, cost: unknown = usage.cost): string {
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  const cached = count(usage.cachedInputTokens);
  const parts = [
    `${count(usage.inputTokens).toLocaleString("en-US")} in${cached ? ` (${cached.toLocaleString("en-US")} cached)` : ""}`,
    `${count(usage.outputTokens).toLocaleString("en-US")} out`,
  ];
  if (typeof cost === "number") parts.push(formatCost(cost));
  return parts.join(" · ");
}
