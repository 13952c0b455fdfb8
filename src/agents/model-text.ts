/**
 * @module
 * The listener an agent (or `Statek.open`) is given for a model's reply text as it streams in; the live
 * `model-text` job event (`jobs/events/job-events.ts`) carries the same pieces.
 */

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
