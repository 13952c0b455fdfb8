/**
 * @module
 * The step's checks of the harness limits (`agents/harness.ts`): the turn limit before the model is asked, the
 * exception limits after a response ran, the token and cost limits after a model call. Each returns the reason
 * the job fails with, or `undefined`.
 */
import { formatCost } from "../../models/format-cost.ts";
import type { JsonValue } from "../../store/store.ts";
import type { HarnessLimits } from "../../agents/harness.ts";
import type { JobState } from "./job-state.ts";

/** The reason to stop before asking the model again, if the turn limit is reached. */
export function checkTurns(limits: HarnessLimits, turns: number, state: JobState, dialog: boolean): string | undefined {
  const used = turns - state.cycleStartTurn;
  if (limits.maxTurns === undefined || used < limits.maxTurns) return undefined;
  const scope = state.completions > 0 ? " since the last user message" : "";
  const unfinished = dialog ? "without ending its turn" : "without calling exit()";
  return `harness limit: the job used all ${limits.maxTurns} of its model turns${scope} (maxTurns) ${unfinished}`;
}

/** Counts the exceptions of one executed response into `state`; returns the reason to stop, if a limit is passed. */
export function countExceptions(limits: HarnessLimits, state: JobState, raised: number): string | undefined {
  state.exceptions += raised;
  state.consecutiveExceptions = raised > 0 ? state.consecutiveExceptions + 1 : 0;
  if (limits.maxExceptions !== undefined && state.exceptions > limits.maxExceptions) {
    return `harness limit: the job raised ${state.exceptions} exceptions, more than its limit of ${limits.maxExceptions} (maxExceptions)`;
  }
  if (limits.maxConsecutiveExceptions !== undefined && state.consecutiveExceptions > limits.maxConsecutiveExceptions) {
    return `harness limit: ${state.consecutiveExceptions} turns in a row raised exceptions, more than the limit of ` +
      `${limits.maxConsecutiveExceptions} (maxConsecutiveExceptions)`;
  }
  return undefined;
}

/**
 * The reason to stop after a model call, if the job's tokens or cost passed a limit — or could have: usage a
 * provider did not report (`unknownCalls` in the totals) makes a token or cost limit impossible to hold, so a
 * job with such a limit stops, as it does for a model without a price.
 */
export function checkUsage(limits: HarnessLimits, usage: Readonly<Record<string, JsonValue>>, model: string, priced: boolean): string | undefined {
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  const tokens = count("inputTokens") + count("outputTokens");
  if (limits.maxTokens !== undefined && tokens > limits.maxTokens) {
    return `harness limit: the job used ${tokens.toLocaleString("en-US")} tokens, more than its limit of ` +
      `${limits.maxTokens.toLocaleString("en-US")} (maxTokens)`;
  }
  const unknown = count("unknownCalls");
  const held = [limits.maxTokens !== undefined ? "maxTokens" : "", limits.maxCost !== undefined ? "maxCost" : ""].filter(Boolean);
  if (unknown > 0 && held.length > 0) {
    return `harness limit: ${held.join(" and ")} ${held.length > 1 ? "are" : "is"} set but the provider did not report the usage of ` +
      `${unknown} model call${unknown === 1 ? "" : "s"} (model ${model}), so the job's usage is unknown and the limit cannot be held`;
  }
  if (limits.maxCost !== undefined) {
    if (!priced) {
      return `harness limit: maxCost is set but the model ${model} has no price, so the cost cannot be limited; ` +
        "add it to the pricing table (Statek.open({ models: { pricing } }))";
    }
    const cost = count("cost");
    if (cost > limits.maxCost) return `harness limit: the job cost ${formatCost(cost)}, more than its limit of ${formatCost(limits.maxCost)} (maxCost)`;
  }
  return undefined;
}
