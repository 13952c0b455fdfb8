/**
 * @module
 * The one timer of a worker: armed on the earliest `wakeAt` the worker knows of, never one per
 * job. When it fires, the worker claims what is due and asks the store for the next `wakeAt` (an index read).
 */

/** Node's timers overflow past ~24.8 days; a longer wait is re-armed after this long. */
const LONGEST_WAIT_MS = 60 * 60 * 1000;

/** A single timer, re-armed only when an earlier time comes along. */
export class WakeTimer {
  readonly #onFire: () => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #at: number | null = null;

  constructor(onFire: () => void, now: () => number = Date.now) {
    this.#onFire = onFire;
    this.#now = now;
  }

  /** The time the timer is armed for, or `null`. */
  get at(): number | null {
    return this.#at;
  }

  /** Arms the timer for `at` unless it is armed for an earlier time already. */
  consider(at: number): void {
    if (this.#at !== null && this.#at <= at) return;
    this.#arm(at);
  }

  /** Arms the timer for exactly `at` (`null`: disarms it): what the store says is the earliest now. */
  set(at: number | null): void {
    if (at === this.#at) return;
    this.clear();
    if (at !== null) this.#arm(at);
  }

  /** Disarms the timer. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = null;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    const delay = Math.min(Math.max(0, at - this.#now()), LONGEST_WAIT_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#at = null;
      this.#onFire();
    }, delay);
  }
}
