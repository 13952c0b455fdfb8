/**
 * @module
 * Wake-ups from other processes (DESIGN.md §10): a client process submits a job, pushes a message or settles a
 * future; its commit appends an event to the store's outbox. The watch reads the outbox by id, after the last
 * event it saw, and tells the worker when something new arrived. On SQLite it first asks `PRAGMA data_version`
 * (through `Store.dataVersion`), which changes only when another connection committed: an idle store costs one
 * pragma per poll, no table read. It never reads waiting jobs; the worker's claim (an index read) does the rest.
 */
import type { Store } from "../store/store.ts";

/** What the watch reads per page of the outbox. */
const PAGE = 1000;

/** Polls the outbox of a store shared with other processes. */
export class OutboxWatch {
  readonly #store: Store;
  readonly #intervalMs: number;
  readonly #onEvents: () => void;
  readonly #onError: (error: unknown) => void;
  #lastEventId = 0;
  #dataVersion: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #tick: Promise<void> = Promise.resolve();

  constructor(store: Store, options: { intervalMs: number; onEvents: () => void; onError: (error: unknown) => void }) {
    this.#store = store;
    this.#intervalMs = options.intervalMs;
    this.#onEvents = options.onEvents;
    this.#onError = options.onError;
  }

  /** Starts after the outbox's newest event: what happened before, the worker's first claim finds. */
  async start(): Promise<void> {
    this.#stopped = false;
    this.#dataVersion = (await this.#store.dataVersion?.()) ?? null;
    this.#lastEventId = (await this.#store.lastEventId?.()) ?? 0;
    this.#schedule();
  }

  /** Stops polling; resolves once a poll in progress has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tick;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#tick = this.#poll().catch(this.#onError).finally(() => this.#schedule());
    }, this.#intervalMs);
  }

  async #poll(): Promise<void> {
    if (this.#store.dataVersion !== undefined) {
      const version = await this.#store.dataVersion();
      if (version !== null && version === this.#dataVersion) return;
      this.#dataVersion = version;
    }
    let arrived = false;
    for (;;) {
      const events = await this.#store.readEvents({ afterId: this.#lastEventId, limit: PAGE });
      if (events.length === 0) break;
      arrived = true;
      this.#lastEventId = events[events.length - 1]!.id;
      if (events.length < PAGE || this.#stopped) break;
    }
    if (arrived && !this.#stopped) this.#onEvents();
  }
}
