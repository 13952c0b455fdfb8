/**
 * @module
 * Harness limits (DESIGN.md §8.4): per job, a limit on model turns, on exceptions (in total and in a row), on
 * tokens and on cost. A job over a limit ends `FAILED` with a readable reason (and its error handlers run).
 * Turns and exceptions count from the job's last (re)start, so a dialog job gets a fresh allowance for each
 * user message; tokens and cost count over the job's whole life.
 */
import { formatCost } from "../models/format-cost.ts";
import type { JsonValue } from "../store/store.ts";
import { kindOf } from "../tools/with-article.ts";
import type { JobState } from "../jobs/step/job-state.ts";

/** Per-job limits; a limit left out is unlimited (except `maxTurns`, see the defaults). */
export interface HarnessLimits {
  /** Model turns a job may take (per user message, for a dialog job). @default 50 */
  maxTurns?: number;
  /** Exceptions (failed cells, failed formal tool calls) a job may raise (per user message). @default 25 */
  maxExceptions?: number;
  /** Turns in a row whose execution raised an exception. @default 5 */
  maxConsecutiveExceptions?: number;
  /**
   * Tokens (input + output, as the provider reports them) over the job's life, failed attempts included. A
   * model call whose usage the provider did not report stops a job with this limit. @default unlimited
   */
  maxTokens?: number;
  /**
   * Cost in USD over the job's life, from the pricing table. A model without a price, or a call whose usage the
   * provider did not report, stops a job with this limit. @default unlimited
   */
  maxCost?: number;
}

/** The default limits. */
export const DEFAULT_HARNESS_LIMITS: Readonly<HarnessLimits> = { maxTurns: 50, maxExceptions: 25, maxConsecutiveExceptions: 5 };

/** Each limit's name in metadata and prompt definition files (`# MAX_TURNS: 20`). */
export const HARNESS_METADATA_KEYS: Readonly<Record<keyof HarnessLimits, string>> = {
  maxTurns: "MAX_TURNS",
  maxExceptions: "MAX_EXCEPTIONS",
  maxConsecutiveExceptions: "MAX_CONSECUTIVE_EXCEPTIONS",
  maxTokens: "MAX_TOKENS",
  maxCost: "MAX_COST",
};

const LIMIT_NAMES = Object.keys(HARNESS_METADATA_KEYS);

/** Checks limits given by an application; a `TypeError` names the bad one. */
export function checkHarnessLimits(limits: unknown, label: string): HarnessLimits {
  if (limits === undefined) return {};
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new TypeError(`${label}: harness limits must be an object such as { maxTurns: 20 }, got ${kindOf(limits)}`);
  }
  for (const [name, value] of Object.entries(limits)) {
    if (!LIMIT_NAMES.includes(name)) {
      throw new TypeError(`${label}: unknown harness limit '${name}' (known: ${LIMIT_NAMES.join(", ")})`);
    }
    if (value !== undefined && (typeof value !== "number" || !(value >= 0))) {
      throw new TypeError(`${label}: harness limit ${name} must be a number ≥ 0, got ${JSON.stringify(value)}`);
    }
  }
  return { ...(limits as HarnessLimits) };
}

/** The limits in force: the agent's, over the process-wide ones, over the defaults. */
export function effectiveLimits(agent: HarnessLimits, global: HarnessLimits): HarnessLimits {
  return { ...DEFAULT_HARNESS_LIMITS, ...defined(global), ...defined(agent) };
}

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

function defined(limits: HarnessLimits): HarnessLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
