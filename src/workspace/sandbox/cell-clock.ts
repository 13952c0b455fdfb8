/**
 * @module
 * A cell's CPU clock on its sandbox thread. The budget runs only while guest code runs: it pauses while the
 * guest waits for the host (a host call, or between slices while the host decides) and resumes when the
 * guest runs again, so the time the host takes is never charged to the cell. Runtime entries called outside
 * a cell (restoring, collecting) run on a budget of their own.
 */

/** The CPU budget of the current cell and of entries called outside it. */
export class CellClock {
  /** Set by the host: true when it wants the current work stopped (a cancelled step). */
  interrupted: () => boolean = () => false;
  /** Told the absolute time by which running guest code must stop, or `Infinity` when none runs (the watchdog reads it). */
  publish: (absoluteDeadlineMs: number) => void = () => {};
  #left = Infinity;
  #limit = Infinity;
  #since: number | undefined;
  #deadline = Infinity;
  readonly #saved: Array<{ left: number; limit: number; since: number | undefined }> = [];

  /** Starts a cell's budget (paused until the guest runs). */
  startCell(limitMs: number): void {
    this.#left = this.#limit = limitMs;
    this.#since = undefined;
    this.#deadline = Infinity;
  }

  /** True while no guest time is being counted. */
  get paused(): boolean {
    return this.#since === undefined;
  }

  /** Guest code runs from now on. */
  resume(): void {
    if (this.#since !== undefined) return;
    const now = performance.now();
    this.#since = now;
    this.#deadline = now + this.#left;
    this.publish(performance.timeOrigin + this.#deadline);
  }

  /** Guest code stops running (it waits for the host, or the slice is over). */
  pause(): void {
    if (this.#since === undefined) return;
    this.#left -= performance.now() - this.#since;
    this.#since = undefined;
    this.#deadline = Infinity;
    this.publish(Infinity);
  }

  /** True when the budget is spent or the host wants the work stopped (the interrupt handler asks this). */
  expired(): boolean {
    if (this.interrupted()) return true;
    return this.#since === undefined ? this.#left <= 0 : performance.now() > this.#deadline;
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
