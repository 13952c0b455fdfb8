/**
 * @module
 * In-process news of settled futures and of jobs that became runnable: when this process settles a future
 * (`resolveFuture`, a pushed message, a due timer), a cell of this process that waits for it and still runs
 * hears it at once; when this process submits a job, pushes a message or settles a future, a worker of this
 * process hears that a job may have become runnable and claims it without waiting for a poll. Cells and workers
 * in other processes learn it from the store (a suspended job is stepped again; the outbox, `worker/`).
 */
import type { FutureOutcome } from "../workspace/cell-host.ts";

/** Listeners by future key, and listeners of "some job may be runnable now". */
export class FutureSignals {
  readonly #listeners = new Map<string, Set<(outcome: FutureOutcome) => void>>();
  readonly #wakeListeners = new Set<(jobId: string) => void>();

  /** Calls `listener` once if future `key` is settled in this process; returns the function that stops listening. */
  once(key: string, listener: (outcome: FutureOutcome) => void): () => void {
    let set = this.#listeners.get(key);
    if (!set) this.#listeners.set(key, (set = new Set()));
    const wrapped = (outcome: FutureOutcome) => {
      stop();
      listener(outcome);
    };
    const stop = () => {
      set!.delete(wrapped);
      if (!set!.size) this.#listeners.delete(key);
    };
    set.add(wrapped);
    return stop;
  }

  /** Tells the listeners of `key` how it settled. */
  emit(key: string, outcome: FutureOutcome): void {
    for (const listener of [...(this.#listeners.get(key) ?? [])]) listener(outcome);
  }

  /**
   * Calls `listener` whenever this process did something that may make job `jobId` runnable (submitted it,
   * pushed a message to it, settled one of its futures). One listener per worker, not per job: a suspended job
   * costs no closure here. Returns the function that stops listening.
   */
  onWake(listener: (jobId: string) => void): () => void {
    this.#wakeListeners.add(listener);
    return () => this.#wakeListeners.delete(listener);
  }

  /** Tells the wake listeners that job `jobId` may be runnable now. A listener that throws does not stop the others. */
  wake(jobId: string): void {
    for (const listener of [...this.#wakeListeners]) {
      try {
        listener(jobId);
      } catch {
        // A listener's failure is its own (a worker logs its errors itself); the caller's action has succeeded.
      }
    }
  }
}
