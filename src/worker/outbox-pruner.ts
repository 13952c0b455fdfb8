/**
 * @module
 * Keeps the outbox of job events from growing forever: every few minutes a running worker deletes the events
 * older than the retention, oldest first, in bounded transactions. What reads the outbox follows recent events
 * only (other processes' wake-ups, `statek.events()`, the UI's live feed); the job's history keeps its records.
 * Several workers may prune one store at once: deleting what another worker deleted is nothing.
 */
import type { Store } from "../store/store.ts";

/** Events deleted per transaction (a prune of a large backlog takes several, yielding between them). */
const BATCH = 10_000;
/** How often a worker prunes, at most (and at least a tenth of the retention, for short retentions in tests). */
const MAX_INTERVAL_MS = 10 * 60_000;

/** How a worker prunes its store's outbox. */
export interface OutboxPruning {
  /** Events older than this are deleted; 0 never deletes. */
  retentionMs: number;
  onError: (error: unknown) => void;
}

/** The periodic pruning of one worker. */
export class OutboxPruner {
  readonly #store: Store;
  readonly #pruning: OutboxPruning;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(store: Store, pruning: OutboxPruning) {
    this.#store = store;
    this.#pruning = pruning;
  }

  /** Prunes now (in the background), then periodically until {@link stop}. */
  start(): void {
    if (this.#pruning.retentionMs <= 0) return;
    const interval = Math.max(1, Math.min(MAX_INTERVAL_MS, Math.floor(this.#pruning.retentionMs / 10)));
    this.#timer = setInterval(() => this.#prune(), interval);
    this.#timer.unref();
    this.#prune();
  }

  /** Stops pruning; resolves once a prune in progress has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  #prune(): void {
    if (this.#running || this.#stopped) return;
    this.#running = (async () => {
      const before = Date.now() - this.#pruning.retentionMs;
      while (!this.#stopped && (await this.#store.pruneEvents({ before, limit: BATCH })) === BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    })()
      .catch((error: unknown) => this.#pruning.onError(error))
      .finally(() => (this.#running = undefined));
  }
}
