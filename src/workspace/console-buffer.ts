/**
 * @module
 * The console of one step: entries in order, capped in total size with a visible marker
 * for what was cut.
 */

/** Where a console entry came from. */
export type ConsoleStream = "out" | "err" | "echo" | "error" | "notice";

/** One console entry. */
export interface ConsoleEntry {
  stream: ConsoleStream;
  text: string;
}

/**
 * Collects console entries up to a character budget.
 *
 * Output (`out`, `err`, `echo`) and notices share the budget. Notices matter more than output (they say what
 * was not saved), so once output has spent the budget they may still use a reserve of a tenth of it; past
 * that they are dropped too, and counted in the marker. The error that ended the cell always gets in, cut to
 * the budget's size: there is at most one per cell.
 */
export class ConsoleBuffer {
  readonly entries: ConsoleEntry[] = [];
  readonly #max: number;
  #remaining: number;
  #reserve: number;
  #dropped = 0;
  #droppedNotices = 0;

  constructor(maxCharacters: number) {
    this.#max = maxCharacters;
    this.#remaining = maxCharacters;
    this.#reserve = Math.ceil(maxCharacters / 10);
  }

  /** Appends an entry, or the part of it that fits (see the class comment). */
  push(stream: ConsoleStream, text: string): void {
    if (stream === "error") {
      const cut = text.length > this.#max ? `${text.slice(0, this.#max)}[… ${(text.length - this.#max).toLocaleString("en-US")} characters truncated]` : text;
      this.entries.push({ stream, text: cut });
      return;
    }
    const notice = stream === "notice";
    const room = this.#remaining + (notice ? this.#reserve : 0);
    if (room <= 0) {
      this.#dropped += text.length;
      if (notice) this.#droppedNotices++;
      return;
    }
    const kept = text.length <= room ? text : text.slice(0, room);
    this.entries.push({ stream, text: kept });
    this.#dropped += text.length - kept.length;
    const fromBudget = Math.min(kept.length, this.#remaining);
    this.#remaining -= fromBudget;
    this.#reserve -= kept.length - fromBudget;
  }

  /** The entries, with a `[… N characters truncated]` marker when output or notices were cut. */
  finish(): ConsoleEntry[] {
    if (this.#dropped > 0) {
      const notices = this.#droppedNotices === 0 ? "" : `; ${this.#droppedNotices.toLocaleString("en-US")} notice${this.#droppedNotices === 1 ? " was" : "s were"} dropped`;
      this.entries.push({ stream: "notice", text: `[… ${this.#dropped.toLocaleString("en-US")} characters truncated${notices}]` });
      this.#dropped = 0;
      this.#droppedNotices = 0;
    }
    return this.entries;
  }
}
