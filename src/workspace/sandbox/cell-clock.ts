/**
 * @module
 * A cell's CPU clock on its sandbox thread. The budget runs only while guest code runs: it pauses while the
 * guest waits for the host (a host call, or between slices while the host decides) and resumes when the
 * guest runs again, so the time the host takes is never charged to the cell. Runtime entries called outside
 * a cell (restoring, collecting) run on a budget of their own.
 *
 * Besides its budget, running guest code stops when the host asks: `interrupted` (the step was cancelled: stop
 * everything) or `stopRequested` (the cell's wall-clock time is up: stop the cell's code, but let the entries
 * that run outside the cell's budget, such as collecting its variables, do their work). A nested entry — one
 * the host runs while the guest waits in a host call — also stops at the deadline the host gave it.
 */

/** The CPU budget of the current cell and of entries called outside it. */
export class CellClock {
  /** Set by the host: true when it wants the current work stopped (a cancelled step). */
  interrupted: () => boolean = () => false;
  /** Set by the host: true when it wants the cell's own code stopped (its wall-clock limit). */
  stopRequested: () => boolean = () => false;
  /** Told the absolute time by which running guest code must stop, or `Infinity` when none runs (the watchdog reads it). */
  publish: (absoluteDeadlineMs: number) => void = () => {};
  #left = Infinity;
  #limit = Infinity;
  #since: number | undefined;
  #deadline = Infinity;
  /** A deadline on top of the budget (a nested entry's), in `performance.now()` time. */
  #cap = Infinity;
  readonly #saved: Array<{ left: number; limit: number; since: number | undefined }> = [];

  /** Starts a cell's budget (paused until the guest runs). */
  startCell(limitMs: number): void {
    this.#left = this.#limit = limitMs;
    this.#since = undefined;
    this.#deadline = Infinity;
    this.#cap = Infinity;
  }

  /** True while no guest time is being counted. */
  get paused(): boolean {
    return this.#since === undefined;
  }

  /**
   * Guest code runs from now on. `untilAbsoluteMs` (in `performance.timeOrigin + performance.now()` time) stops it
   * earlier than the budget would, until the next {@link pause}.
   */
  resume(untilAbsoluteMs = Infinity): void {
    if (this.#since !== undefined) return;
    const now = performance.now();
    this.#since = now;
    this.#cap = untilAbsoluteMs - performance.timeOrigin;
    this.#deadline = Math.min(now + this.#left, this.#cap);
    this.publish(performance.timeOrigin + this.#deadline);
  }

  /** Guest code stops running (it waits for the host, or the slice is over). */
  pause(): void {
    if (this.#since === undefined) return;
    this.#left -= performance.now() - this.#since;
    this.#since = undefined;
    this.#deadline = Infinity;
    this.#cap = Infinity;
    this.publish(Infinity);
  }

  /**
   * True when the budget is spent, the deadline of a nested entry passed, or the host wants the work stopped
   * (the interrupt handler asks this).
   */
  expired(): boolean {
    if (this.interrupted()) return true;
    if (this.#saved.length === 0 && this.stopRequested()) return true;
    return this.#since === undefined ? this.#left <= 0 : performance.now() > this.#deadline;
  }

  /** True when the running entry passed the deadline it was given (not its budget). */
  capped(): boolean {
    return this.#cap !== Infinity && performance.now() > this.#cap;
  }

  /** Milliseconds of budget left. */
  left(): number {
    return this.#since === undefined ? this.#left : this.#left - (performance.now() - this.#since);
  }

  /** Milliseconds of the budget used. */
  usedMs(): number {
    return Math.max(0, this.#limit - this.left());
  }

  /** Runs an entry outside the cell's budget: a budget of `limitMs` of its own until {@link leave}. */
  enter(limitMs: number): void {
    this.#saved.push({ left: this.#left, limit: this.#limit, since: this.#since });
    this.#left = this.#limit = limitMs;
    this.#since = undefined;
    this.resume();
  }

  /** Back to the budget that was running before {@link enter}. */
  leave(): void {
    this.pause();
    const saved = this.#saved.pop();
    if (!saved) return;
    this.#left = saved.left;
    this.#limit = saved.limit;
    this.#since = undefined;
    if (saved.since !== undefined) this.resume();
  }
}
