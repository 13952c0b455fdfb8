/**
 * @module
 * What a worker has done, for status lines and logs: steps in flight, steps ended by outcome, and the step
 * rate over the last few seconds. Counters only: nothing here grows with the number of jobs.
 */

/** A snapshot of a worker's counters. */
export interface WorkerStats {
  /** Steps running now. */
  running: number;
  /**
   * Jobs this worker suspended and has not stepped again since (a job suspended by another process and resumed
   * here counts −1, so the figure is this worker's own balance, not the store's count).
   */
  suspended: number;
  /** Steps that ended their job `DONE`. */
  done: number;
  /** Steps that ended their job `FAILED`. */
  failed: number;
  /** Steps that ended their job `CANCELLED` (it was cancelled while it ran). */
  cancelled: number;
  /** Steps committed in all. */
  steps: number;
  /** Steps that failed without committing (a store outage, a lost lease, a stop); their jobs are stepped again. */
  stepErrors: number;
  /** Steps per second over the last {@link RATE_WINDOW_MS} (fewer while the worker is younger). */
  stepsPerSecond: number;
}

/** The window of the step rate. */
export const RATE_WINDOW_MS = 5_000;

/** Counters of one worker. */
export class WorkerCounters {
  running = 0;
  suspended = 0;
  done = 0;
  failed = 0;
  cancelled = 0;
  steps = 0;
  stepErrors = 0;
  readonly #now: () => number;
  /** Step counts per second slot of the window (a ring), and the second each slot holds. */
  readonly #slots = new Array<number>(RATE_WINDOW_MS / 1000).fill(0);
  readonly #slotSeconds = new Array<number>(RATE_WINDOW_MS / 1000).fill(-1);
  readonly #startedAt: number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#startedAt = now();
  }

  /** Counts one committed step that took its job from `previous` to `status`. */
  stepEnded(previous: string, status: string): void {
    this.steps++;
    if (status === "SUSPENDED") this.suspended++;
    if (previous === "SUSPENDED") this.suspended--;
    if (status === "DONE") this.done++;
    else if (status === "FAILED") this.failed++;
    else if (status === "CANCELLED") this.cancelled++;
    const second = Math.floor(this.#now() / 1000);
    const slot = second % this.#slots.length;
    if (this.#slotSeconds[slot] !== second) {
      this.#slotSeconds[slot] = second;
      this.#slots[slot] = 0;
    }
    this.#slots[slot]!++;
  }

  /** The counters now. */
  snapshot(): WorkerStats {
    const now = this.#now();
    const second = Math.floor(now / 1000);
    let recent = 0;
    this.#slotSeconds.forEach((slotSecond, slot) => {
      if (slotSecond > second - this.#slots.length) recent += this.#slots[slot]!;
    });
    const windowMs = Math.max(1, Math.min(RATE_WINDOW_MS, now - this.#startedAt));
    return {
      running: this.running, suspended: this.suspended, done: this.done, failed: this.failed, cancelled: this.cancelled,
      steps: this.steps, stepErrors: this.stepErrors, stepsPerSecond: (recent * 1000) / windowMs,
    };
  }
}
