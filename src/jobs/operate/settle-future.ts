/**
 * @module
 * `statek.resolveFuture` / `statek.rejectFuture`: the application settles a durable future a tool returned
 * (`ctx.future(key)`), first writer wins. A cell of this process that waits for it hears it at once; a
 * suspended job is woken (the store makes it runnable) and replays its cell up to the wait, which then yields.
 */
import type { FutureSignals } from "../../durable/future-signals.ts";
import { outcomeOf } from "../../durable/job-futures.ts";
import type { FutureSettlement, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import { checkJson } from "./submit-values.ts";

/** Settles future `key`; true when this call settled it (false: it was settled already). */
export async function settleFuture(store: Store, signals: FutureSignals, call: string, key: unknown, settlement: FutureSettlement): Promise<boolean> {
  if (typeof key !== "string" || !key.trim()) throw new TypeError(`${call}: key must be a non-empty string`);
  checkJson(settlement.value, "value", call);
  const result = await withStoreRetries(() => store.settleFuture(key, settlement));
  const outcome = outcomeOf(result.future);
  if (result.settled && outcome) signals.emit(key, outcome);
  // The store woke a suspended job that waited for it: a worker of this process claims it at once.
  if (result.settled && result.future.jobId !== null) signals.wake(result.future.jobId);
  return result.settled;
}

/** How `rejectFuture`'s error is stored: its name and message. */
export function rejection(error: unknown, call: string): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (typeof error === "string") return { name: "Error", message: error };
  throw new TypeError(`${call}: error must be an Error or a string`);
}
