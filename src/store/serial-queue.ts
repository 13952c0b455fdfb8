/**
 * @module
 * The one-at-a-time queue of an adapter: each operation starts when the one queued before it has settled,
 * whether it succeeded or failed. The SQLite adapter runs everything on its one connection through it; the
 * PostgreSQL adapter its write transactions (a group commit's batch each), so that writes keep call order and
 * a process never deadlocks with itself.
 */

/** Runs operations one after another, in the order they were queued. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Operations queued and not settled yet (0: the queue is idle). */
  get pending(): number {
    return this.#pending;
  }

  /** Queues `operation`; resolves or rejects as it does. */
  run<T>(operation: () => Promise<T>): Promise<T> {
    this.#pending++;
    const run = this.#tail.then(operation, operation).finally(() => {
      this.#pending--;
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every operation queued so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
