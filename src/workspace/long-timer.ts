/**
 * @module
 * Timers of any length. One `setTimeout` holds at most 2³¹−1 ms (about 24.8 days): Node turns a longer delay
 * into 1 ms, so a 30-day wait would end at once. A long wait is armed in steps of at most that much and
 * re-armed until its time has come (waits of any length).
 */

/** The longest delay one `setTimeout` holds. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What arms one native timer (a cell host's timer source, or `setTimeout` itself); returns the function that disarms it. */
export type ArmTimer = (ms: number, fire: () => void) => () => void;

/** `setTimeout`, not keeping the process alive (a durable wait is also in the store: a worker wakes the job). */
export const unrefTimer: ArmTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/**
 * Calls `fire` once `ms` milliseconds from now (by `now()`), however long that is; returns the function that
 * disarms it. `ms` must be a finite number ≥ 0.
 */
export function armLongTimer(ms: number, fire: () => void, arm: ArmTimer = unrefTimer, now: () => number = Date.now): () => void {
  if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`a timer needs a finite number of milliseconds ≥ 0, got ${ms}`);
  const due = now() + ms;
  let disarm: () => void = () => {};
  let stopped = false;
  const step = () => {
    if (stopped) return;
    const left = due - now();
    if (left <= 0) {
      stopped = true;
      fire();
      return;
    }
    disarm = arm(Math.min(left, MAX_TIMEOUT_MS), step);
  };
  disarm = arm(Math.min(ms, MAX_TIMEOUT_MS), step);
  return () => {
    stopped = true;
    disarm();
  };
}
