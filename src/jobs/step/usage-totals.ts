/**
 * @module
 * A job's usage totals (`JobRow.usage`): tokens and cost summed over its model calls — replies, vetoed
 * replies and failed attempts alike, since each was paid for. A call whose usage the provider did not report
 * adds nothing to the counts but is counted in `unknownCalls`, so totals never pass unknown usage off as 0
 * (the harness then refuses to hold token and cost limits it cannot check).
 */
import type { ModelUsage } from "../../models/model-request.ts";
import { knownCounts } from "../../models/token-counts.ts";
import type { JsonValue } from "../../store/store.ts";

/** The totals after one more model call; `cost` is added when the call's cost is known. */
export function addUsage(total: Readonly<Record<string, JsonValue>>, usage: ModelUsage, cost: number | undefined): Record<string, JsonValue> {
  const number = (key: string) => (typeof total[key] === "number" ? (total[key] as number) : 0);
  const counts = knownCounts(usage);
  const sum: Record<string, JsonValue> = { ...total };
  if (counts) {
    sum.inputTokens = number("inputTokens") + counts.inputTokens;
    sum.cachedInputTokens = number("cachedInputTokens") + counts.cachedInputTokens;
    sum.outputTokens = number("outputTokens") + counts.outputTokens;
  } else {
    // The counts that were reported still add up; the call is marked unknown as a whole.
    sum.inputTokens = number("inputTokens") + (usage.inputTokens ?? 0);
    sum.cachedInputTokens = number("cachedInputTokens") + (usage.inputTokens === null ? 0 : usage.cachedInputTokens ?? 0);
    sum.outputTokens = number("outputTokens") + (usage.outputTokens ?? 0);
    sum.unknownCalls = number("unknownCalls") + 1;
  }
  if (cost !== undefined) sum.cost = number("cost") + cost;
  return sum;
}

/** How many model calls of the job had usage the provider did not report. */
export function unknownCallsOf(total: Readonly<Record<string, JsonValue>>): number {
  return typeof total.unknownCalls === "number" ? total.unknownCalls : 0;
}
