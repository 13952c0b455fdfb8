/**
 * @module
 * Group commit: writes that arrive together (in one event-loop turn, or while the batch before them commits)
 * share one transaction, so many jobs stepping at once cost one fsync. One batch commits at a time: the writes
 * queued during a slow fsync go out together after it, not as a line of small transactions. A failing write undoes only itself and rejects only its own promise; each
 * promise resolves once the shared transaction has committed.
 *
 * A batch is first applied without savepoints: a write rarely fails (a lost lease, a conflict), and a savepoint
 * around every write costs PostgreSQL a round trip each. When a write of that attempt throws, the whole
 * transaction is rolled back — nothing of it lands — and the batch is applied again, each write in its own
 * savepoint. A write is a function of the transaction alone, so applying it again reads and decides afresh.
 */
import type { AdapterTransaction, StoreAdapter } from "./store-adapter.ts";

/** A write waiting for the next group commit. */
interface QueuedWrite {
  apply: (transaction: AdapterTransaction) => Promise<unknown>;
  /** True for a write that may make a job runnable or append events (see {@link GroupCommit.enqueue}). */
  wakes: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Thrown out of a batch's first attempt when one of its writes failed: the attempt is rolled back and redone. */
class WriteFailed extends Error {
  readonly reason: unknown;

  constructor(reason: unknown) {
    super("a write of the batch failed; the batch is applied again with a savepoint per write");
    this.reason = reason;
  }
}

/** Queues writes and applies each batch in one transaction of the adapter, in call order. */
export class GroupCommit {
  readonly #adapter: StoreAdapter;
  readonly #onWakingCommit: (announced: boolean) => void;
  #queue: QueuedWrite[] = [];
  #flushScheduled = false;
  /** True while a batch's transaction runs: writes queued meanwhile wait for it and then go out as one batch. */
  #committing = false;

  /**
   * `onWakingCommit` runs after a batch commits in which a write marked `wakes` succeeded; `announced` is true
   * when the transaction carried the hint to other processes itself (`announceWakeupOnCommit`).
   */
  constructor(adapter: StoreAdapter, onWakingCommit: (announced: boolean) => void = () => undefined) {
    this.#adapter = adapter;
    this.#onWakingCommit = onWakingCommit;
  }

  /**
   * Queues `apply` for the next batch (flushed on `setImmediate`, after the current turn's other writes). A
   * `signal` that aborts while the write is still queued removes it; once its batch has started it is too late.
   * `wakes` marks a write that may make a job runnable or append events (a wake-up hint follows its commit).
   */
  enqueue<T>(apply: (transaction: AdapterTransaction) => Promise<T>, signal?: AbortSignal, wakes = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const write: QueuedWrite = { apply, wakes, resolve: (value) => resolve(value as T), reject };
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
      this.#schedule();
    });
  }

  /** Flushes on `setImmediate`, or after the batch being committed (the next group fills while one commits). */
  #schedule(): void {
    if (this.#flushScheduled || this.#committing) return;
    this.#flushScheduled = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#flushScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    this.#committing = true;
    try {
      await this.#commit(batch);
    } finally {
      this.#committing = false;
      if (this.#queue.length) this.#schedule();
    }
  }

  /** Applies `batch` in one transaction and settles each write's promise. */
  async #commit(batch: QueuedWrite[]): Promise<void> {
    const outcomes = new Map<QueuedWrite, { ok: true; value: unknown } | { ok: false; error: unknown }>();
    // A hint sent with a transaction whose waking write then failed is one for nothing: hints may be.
    const wakes = batch.some((write) => write.wakes);
    let announced = false;
    const announce = (transaction: AdapterTransaction) => {
      if (!wakes || transaction.announceWakeupOnCommit === undefined) return;
      transaction.announceWakeupOnCommit();
      announced = true;
    };
    try {
      await this.#adapter.transaction(async (transaction) => {
        announce(transaction);
        for (const write of batch) {
          try {
            outcomes.set(write, { ok: true, value: await write.apply(transaction) });
          } catch (error) {
            throw new WriteFailed(error);
          }
        }
        // Writes the adapter sent without waiting: an error of theirs is one of the batch's writes.
        try {
          await transaction.flush?.();
        } catch (error) {
          throw new WriteFailed(error);
        }
      });
    } catch (error) {
      outcomes.clear();
      if (!(error instanceof WriteFailed)) return this.#failAll(batch, outcomes, error);
      if (batch.length === 1) outcomes.set(batch[0]!, { ok: false, error: error.reason });
      else if (!(await this.#applyInSavepoints(batch, outcomes, announce))) return;
    }
    if (batch.some((write) => write.wakes && outcomes.get(write)!.ok)) this.#onWakingCommit(announced);
    for (const write of batch) {
      const outcome = outcomes.get(write)!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    }
  }

  /** Applies `batch` again, each write in its own savepoint; false (every write rejected) when the transaction failed. */
  async #applyInSavepoints(
    batch: QueuedWrite[], outcomes: Map<QueuedWrite, { ok: true; value: unknown } | { ok: false; error: unknown }>,
    announce: (transaction: AdapterTransaction) => void,
  ): Promise<boolean> {
    try {
      await this.#adapter.transaction(async (transaction) => {
        announce(transaction);
        for (const write of batch) outcomes.set(write, await transaction.savepoint(() => write.apply(transaction)));
      });
      return true;
    } catch (error) {
      this.#failAll(batch, outcomes, error);
      return false;
    }
  }

  /**
   * The transaction itself failed (busy, I/O, a savepoint that could not be undone): nothing of it landed, so
   * every write fails; those that failed on their own keep their own reason.
   */
  #failAll(batch: QueuedWrite[], outcomes: Map<QueuedWrite, { ok: true; value: unknown } | { ok: false; error: unknown }>, error: unknown): void {
    for (const write of batch) {
      const outcome = outcomes.get(write);
      write.reject(outcome !== undefined && !outcome.ok ? outcome.error : error);
    }
  }
}
