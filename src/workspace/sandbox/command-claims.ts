/**
 * @module
 * Who decides whether a command posted ahead to a sandbox thread runs: the thread, when it gets to the command,
 * or the scheduling thread, when it takes the command back because the thread stalled. Both race on one shared
 * slot per command with a compare-and-swap, so exactly one of them wins. Without it, a thread could start a
 * `start` the scheduling thread had just given up on — the cell would then run in two VMs at once, both feeding
 * one workspace's journal.
 */

/** Slots, by sequence number modulo this; far more than commands in flight on one thread at once. */
export const CLAIM_SLOTS = 256;

/** One side's view of a thread's claim slots. */
export class CommandClaims {
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Int32Array(buffer);
  }

  /** A new buffer of claim slots for one thread. */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(CLAIM_SLOTS * 4);
  }

  /** The thread, about to run command `seq`: true when it may (it was not taken back first). */
  start(seq: number): boolean {
    return this.#claim(seq, seq);
  }

  /** The scheduling thread: true when command `seq` is taken back (the thread had not started it). */
  takeBack(seq: number): boolean {
    return this.#claim(seq, -seq);
  }

  // A slot holds `seq` once started, `-seq` once taken back, or a finished command's mark before either.
  #claim(seq: number, mine: number): boolean {
    const index = seq % CLAIM_SLOTS;
    for (;;) {
      const seen = Atomics.load(this.#slots, index);
      if (seen === seq || seen === -seq) return seen === mine;
      if (Atomics.compareExchange(this.#slots, index, seen, mine) === seen) return true;
    }
  }
}
