/**
 * @module
 * The console of one step: entries in order, capped in total size (DESIGN.md §6.4) with a visible marker
 * for what was cut.
 */

/** Where a console entry came from. */
export type ConsoleStream = "out" | "err" | "echo" | "error" | "notice";

/** One console entry. */
export interface ConsoleEntry {
  stream: ConsoleStream;
  text: string;
}

/** Collects console entries up to a character budget. */
export class ConsoleBuffer {
  readonly entries: ConsoleEntry[] = [];
  readonly #max: number;
  #remaining: number;
  #dropped = 0;

  constructor(maxCharacters: number) {
    this.#max = maxCharacters;
    this.#remaining = maxCharacters;
  }

  /**
   * Appends an entry, or the part of it that fits. Errors and notices always get in — they matter most — but
   * each is cut to the budget's size, so not even an error message can flood a step.
   */
  push(stream: ConsoleStream, text: string): void {
    if (stream === "error" || stream === "notice") {
      const cut = text.length > this.#max ? `${text.slice(0, this.#max)}[… ${(text.length - this.#max).toLocaleString("en-US")} characters truncated]` : text;
      this.entries.push({ stream, text: cut });
      return;
    }
    if (text.length <= this.#remaining) {
      this.entries.push({ stream, text });
      this.#remaining -= text.length;
      return;
    }
    if (this.#remaining > 0) this.entries.push({ stream, text: text.slice(0, this.#remaining) });
    this.#dropped += text.length - Math.max(this.#remaining, 0);
    this.#remaining = 0;
  }

  /** The entries, with a `[… N characters truncated]` marker when output was cut. */
  finish(): ConsoleEntry[] {
    if (this.#dropped > 0) {
      this.entries.push({ stream: "notice", text: `[… ${this.#dropped.toLocaleString("en-US")} characters truncated]` });
      this.#dropped = 0;
    }
    return this.entries;
  }
}
