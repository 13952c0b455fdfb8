/**
 * @module
 * Group commit: writes that arrive together (in one event-loop turn) share one transaction, so many jobs
 * stepping at once cost one fsync. Each write runs in its own savepoint, so a failing write undoes only itself
 * and rejects only its own promise; each promise resolves once the shared transaction has committed.
 */
import type { AdapterTransaction, StoreAdapter } from "./store-adapter.ts";

/** A write waiting for the next group commit. */
interface QueuedWrite {
  apply: (transaction: AdapterTransaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Queues writes and applies each batch in one transaction of the adapter, in call order. */
export class GroupCommit {
  readonly #adapter: StoreAdapter;
  #queue: QueuedWrite[] = [];
  #flushScheduled = false;

  constructor(adapter: StoreAdapter) {
    this.#adapter = adapter;
  }

  /**
   * Queues `apply` for the next batch (flushed on `setImmediate`, after the current turn's other writes). A
   * `signal` that aborts while the write is still queued removes it; once its batch has started it is too late.
   */
  enqueue<T>(apply: (transaction: AdapterTransaction) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const write: QueuedWrite = { apply, resolve: (value) => resolve(value as T), reject };
      if (signal !== undefined) {
        const onAbort = () => {
          const index = this.#queue.indexOf(write);
          if (index === -1) return;
          this.#queue.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        write.resolve = (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value as T);
        };
        write.reject = (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        };
      }
      this.#queue.push(write);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#flushScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const outcomes = new Map<QueuedWrite, { ok: true; value: unknown } | { ok: false; error: unknown }>();
    try {
      await this.#adapter.transaction(async (transaction) => {
        for (const write of batch) outcomes.set(write, await transaction.savepoint(() => write.apply(transaction)));
      });
    } catch (error) {
      // The transaction itself failed (busy, I/O, a savepoint that could not be undone): nothing of it landed,
      // so every write fails; those that failed on their own keep their own reason.
      for (const write of batch) {
        const outcome = outcomes.get(write);
        write.reject(outcome !== undefined && !outcome.ok ? outcome.error : error);
      }
      return;
    }
    for (const write of batch) {
      const outcome = outcomes.get(write)!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    }
  }
}
