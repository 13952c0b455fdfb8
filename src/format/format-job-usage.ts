/**
 * @module
 * A job's total token usage and cost as the CLI and the UI show it: `25,000 input (22,000 cached) · 350 output
 * tokens · $0.002`, with the calls whose provider reported no usage said, not counted as zero.
 */
import { formatCost } from "../models/format-cost.ts";
import { llmRepr } from "../tools/llm-repr.ts";

/** The fields of a job's stored usage that have a place of their own; others are shown as `name value`. */
const KNOWN = ["inputTokens", "cachedInputTokens", "outputTokens", "cost", "unknownCalls"];

/** The job's usage totals as one line. */
export function formatJobUsage(usage: Readonly<Record<string, unknown>>): string {
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  const parts = [
    `${count("inputTokens").toLocaleString("en-US")} input (${count("cachedInputTokens").toLocaleString("en-US")} cached)`,
    `${count("outputTokens").toLocaleString("en-US")} output tokens`,
  ];
  if (typeof usage.cost === "number") parts.push(formatCost(usage.cost));
  const unknown = count("unknownCalls");
  if (unknown > 0) parts.push(`usage unknown for ${unknown.toLocaleString("en-US")} model call${unknown === 1 ? "" : "s"} (not counted)`);
  for (const [key, value] of Object.entries(usage)) if (!KNOWN.includes(key)) parts.push(`${key} ${llmRepr(value)}`);
  return parts.join(" · ");
}
