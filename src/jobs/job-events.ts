/**
 * @module
 * Events a running job produces, as one stream of `{ jobId, kind, … }` objects (DESIGN.md §4). Today the step
 * emits model text as it streams in; the application hears it through `onModelText` (on `Statek.open` and on
 * an `Agent`). `statek.events()` is meant to carry these same objects.
 */

/** A piece of a model's reply text, as the provider streamed it. */
export interface ModelTextEvent {
  kind: "model-text";
  jobId: string;
  /** The job's agent role. */
  role: string;
  /** The turn the reply is for (1-based). */
  turn: number;
  /**
   * The attempt of the model call (1-based). A retried call streams again from the start: text from an
   * earlier attempt of the same turn is superseded.
   */
  attempt: number;
  /** The new text (inline `<think>` reasoning is not model text). */
  delta: string;
}

/** Every job event. */
export type JobEvent = ModelTextEvent;

/**
 * Hears a model's reply text as it streams in — for progress displays and chat applications. Called once per
 * piece of text, before the reply is complete or committed; the reply that is committed is in the job's
 * history. When a call is retried, `attempt` grows and the text starts over. Must not throw (what it throws
 * is ignored: the reply does not depend on it) and should return quickly.
 *
 * @example
 * ```ts
 * const statek = await Statek.open({ agents: [agent], onModelText: (delta, { job, turn }) => process.stdout.write(delta) });
 * ```
 */
export type OnModelText = (delta: string, context: { job: { id: string; role: string }; turn: number; attempt: number }) => void;

/** Calls `listener` with `event`'s delta, ignoring what it throws or rejects with (a listener cannot break a step). */
export function notifyModelText(listener: OnModelText | undefined, event: ModelTextEvent): void {
  if (!listener) return;
  try {
    const result: unknown = listener(event.delta, { job: { id: event.jobId, role: event.role }, turn: event.turn, attempt: event.attempt });
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // An observer's failure is its own; the reply goes on.
  }
}
