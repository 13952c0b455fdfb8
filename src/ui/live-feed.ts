/**
 * @module
 * The UI's one reader of the store's outbox. However many pages are open, one loop reads new events (by id,
 * after the last one it saw) and hands them to the subscribers. It reads when the store says a write may have
 * appended events (`subscribeWakeups`: this process's commits at once, other processes' through the engine's
 * own hint — `PRAGMA data_version` on SQLite, `LISTEN/NOTIFY` on PostgreSQL), when an action of the UI woke it,
 * and every `pollMs` as a safety net. Nothing is read, and the store is not watched, while nobody listens.
 */
import type { JobEventRow, Store } from "../store/store.ts";

/** A subscriber: gets every new event (it filters by job itself). */
export type EventListener = (event: JobEventRow) => void;

/** The shared outbox reader. */
export class LiveFeed {
  readonly #store: Store;
  readonly #pollMs: number;
  readonly #listeners = new Set<EventListener>();
  #cursor: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #closed = false;
  #stopWakeups: (() => void) | undefined;

  constructor(store: Store, options: { pollMs?: number } = {}) {
    this.#store = store;
    this.#pollMs = options.pollMs ?? 5_000;
  }

  /** The id of the newest event read so far (where a new page starts listening). */
  async cursor(): Promise<number> {
    this.#cursor ??= await this.#store.lastEventId();
    return this.#cursor;
  }

  /** Adds a listener; the returned function removes it. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    if (!this.#closed) this.#stopWakeups ??= this.#store.subscribeWakeups(() => this.#schedule(0));
    this.#schedule(0);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#unwatch();
    };
  }

  /** Reads now (after this process appended events). */
  wake(): void {
    this.#schedule(0);
  }

  /** Number of listeners (for the memory figure and tests). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Stops reading. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#listeners.clear();
    this.#unwatch();
  }

  #unwatch(): void {
    this.#stopWakeups?.();
    this.#stopWakeups = undefined;
  }

  #schedule(delayMs: number): void {
    if (this.#closed || this.#listeners.size === 0) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#read(), delayMs);
    this.#timer.unref();
  }

  async #read(): Promise<void> {
    this.#reading = (async () => {
      try {
        let cursor = await this.cursor();
        for (;;) {
          const events = await this.#store.readEvents({ afterId: cursor, limit: 500 });
          for (const event of events) {
            cursor = event.id;
            for (const listener of this.#listeners) listener(event);
          }
          this.#cursor = cursor;
          if (events.length < 500) break;
        }
      } catch {
        // A busy or closing store: the next read tries again; pages keep what they show.
      }
    })();
    await this.#reading;
    this.#reading = undefined;
    const again = this.#again;
    this.#again = false;
    this.#schedule(again ? 0 : this.#pollMs);
  }
}
