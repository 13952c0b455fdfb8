/**
 * @module
 * The runner's counters kept in a job's `state` column: where warmup stands, the harness counters, and how
 * often a dialog job was restarted by a user message.
 */
import type { JobRow, JsonValue } from "../../store/store.ts";
import type { StepChanges } from "./step-changes.ts";

/** The runner state of one job. */
export interface JobState {
  /** Index of the next warmup block to run. */
  warmupBlock: number;
  /** Exceptions raised since the job (re)started: failed cells and failed formal tool calls. */
  exceptions: number;
  /** Executed responses in a row, up to now, that raised an exception. */
  consecutiveExceptions: number;
  /** `turns` when the job last (re)started; the turn limit counts from here. */
  cycleStartTurn: number;
  /** How often a user message restarted the job after it was `DONE`. */
  completions: number;
}

/** The job's state as this step sees it (what it read, plus what it changed). */
export function readJobState(row: JobRow, changes?: StepChanges): JobState {
  const stored = { ...row.state, ...(changes?.job.state ?? {}) };
  const number = (key: keyof JobState) => (typeof stored[key] === "number" ? (stored[key] as number) : 0);
  return {
    warmupBlock: number("warmupBlock"),
    exceptions: number("exceptions"),
    consecutiveExceptions: number("consecutiveExceptions"),
    cycleStartTurn: number("cycleStartTurn"),
    completions: number("completions"),
  };
}

/** The reason of the `status` record of a `DONE` dialog job that a user message starts again. */
export const MESSAGE_RESTART_REASON = "a user message arrived";

/**
 * The state of a `DONE` dialog job that a user message starts again: fresh turn and exception allowances from
 * `turns` on, one more completion counted.
 */
export function restartedState(state: Record<string, JsonValue>, turns: number): Record<string, JsonValue> {
  const completions = typeof state.completions === "number" ? state.completions : 0;
  return { ...state, completions: completions + 1, cycleStartTurn: turns, exceptions: 0, consecutiveExceptions: 0 };
}

/** Records changed state fields in the step's commit. */
export function writeJobState(row: JobRow, changes: StepChanges, patch: Partial<JobState>): void {
  changes.job.state = { ...row.state, ...(changes.job.state ?? {}), ...(patch as Record<string, JsonValue>) };
}
