/**
 * @module
 * What a sandbox thread knows about the cell running in one VM, whatever the engine: whether its code has
 * finished, the first error it failed with, how many pending host results it still expects, and the entry
 * call to make once it is over. From these it decides, after each slice, whether the cell must stop.
 */
import type { CellOutcome, EntryCall, GuestError } from "../executor.ts";
import { CANCELLED_OUTCOME, STALLED, isPendingReply, timeLimitOutcome, wallLimitOutcome } from "./engine-vm.ts";

/** The state of the current cell of one VM. */
export class CellProgress {
  #end: { error?: GuestError } | undefined;
  #failure: GuestError | undefined;
  #outstanding = 0;
  #timeLimitMs = 0;
  #wallTimeMs = 0;
  #clockStopped = false;
  #wallStopped = false;
  /** The entry call to make when the cell is over. */
  after: EntryCall | undefined;

  /** A new cell. */
  start(timeLimitMs: number, wallTimeMs: number, after: EntryCall | undefined): void {
    this.#end = undefined;
    this.#failure = undefined;
    this.#outstanding = 0;
    this.#timeLimitMs = timeLimitMs;
    this.#wallTimeMs = wallTimeMs;
    this.#clockStopped = false;
    this.#wallStopped = false;
    this.after = after;
  }

  /** The guest reported the end of its code (`done`), with the error that ended it, if any. */
  guestEnded(error: GuestError | undefined): void {
    // An error reported later (a timer callback that threw after the code finished) still ends the cell.
    if (this.#end === undefined || (error && !this.#end.error)) this.#end = error ? { error } : {};
  }

  /** Guest code failed outside the cell's own error handling (an entry threw, the engine stopped it). */
  guestFailed(error: GuestError): void {
    this.#failure ??= error;
  }

  /** The CPU clock stopped guest code (after the cell's own code finished, a timer callback may still run out of time). */
  clockStopped(): void {
    this.#clockStopped = true;
  }

  /** The host stopped guest code at the cell's wall-clock limit. */
  wallStopped(): void {
    this.#wallStopped = true;
  }

  /** The host answered a guest message with `reply`. */
  replied(reply: string): void {
    if (reply.length && isPendingReply(reply)) this.#outstanding++;
  }

  /** A pending host result was handed to the guest. */
  delivered(): void {
    if (this.#outstanding > 0) this.#outstanding--;
  }

  /** The cell's code finished without error. */
  get ended(): boolean {
    return this.#end !== undefined && !this.#end.error;
  }

  /** True when the cell failed and nothing more should run in it. */
  mustStop(): boolean {
    return this.#end?.error !== undefined || (this.#failure !== undefined && this.#end === undefined);
  }

  /** The outcome when the cell must stop now (`leftMs`: CPU budget left), or `undefined`. */
  stopOutcome(leftMs: number): CellOutcome | undefined {
    if (this.#wallStopped) return wallLimitOutcome(this.#wallTimeMs);
    if (this.#clockStopped || (leftMs <= 0 && !this.ended)) return timeLimitOutcome(this.#timeLimitMs);
    if (this.#end?.error) return { error: this.#end.error };
    if (this.#failure && this.#end === undefined) return { error: this.#failure };
    return undefined;
  }

  /** True when the code finished and expects no pending result: the cell is over without asking the host. */
  finishedWithNothingPending(): boolean {
    return this.ended && this.#outstanding === 0;
  }

  /** The outcome when the host ends an idle cell. */
  outcomeWhenIdle(end: "finished" | "stalled" | "suspended" | "stopped"): CellOutcome {
    if (end === "suspended") return { suspended: true, poisoned: true };
    if (end === "stopped" || this.#wallStopped) return wallLimitOutcome(this.#wallTimeMs);
    if (this.#end?.error) return { error: this.#end.error };
    return this.ended ? {} : { error: STALLED };
  }

  /** The outcome of a cancelled cell. */
  cancelled(): CellOutcome {
    return CANCELLED_OUTCOME;
  }

  /** The cell is over. */
  over(): void {
    this.#outstanding = 0;
  }
}
