/**
 * @module
 * In-process news of settled futures: when this process settles a future (`resolveFuture`, a pushed
 * message, a due timer), a cell of this process that waits for it and still runs hears it at once. Cells in
 * other processes — or cells that already suspended — learn it from the store when their job is stepped again.
 */
import type { FutureOutcome } from "../workspace/cell-host.ts";

/** Listeners by future key. */
export class FutureSignals {
  readonly #listeners = new Map<string, Set<(outcome: FutureOutcome) => void>>();

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
}
