/**
 * @module
 * Harness limits: per job, a limit on model turns, on exceptions (in total and in a row), on
 * tokens and on cost. A job over a limit ends `FAILED` with a readable reason (and its error handlers run).
 * Turns and exceptions count from the job's last (re)start, so a dialog job gets a fresh allowance for each
 * user message; tokens and cost count over the job's whole life. The step checks them
 * (`jobs/step/harness-checks.ts`).
 */
import { kindOf } from "../tools/with-article.ts";

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

function defined(limits: HarnessLimits): HarnessLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
