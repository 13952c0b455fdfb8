/**
 * @module
 * Events of jobs, as one stream of `{ jobId, kind, … }` objects: what `statek.events()` yields
 * and the UI and progress displays use. Most are *recorded*: written to the store's outbox in the same
 * transaction as the change they describe, so they are never heard before that change is durable, they come in
 * commit order, and a reader in another process sees them too. Model text is *live*: heard as the provider
 * streams it, before the reply is committed, in this process only (`onModelText`, on `Statek.open` and on an
 * `Agent`, hears the same pieces).
 */
import type { JobStatus, JsonValue } from "../../store/store.ts";
import type { ConsoleRecord } from "../history/history.ts";
import type { OnModelText } from "../../agents/model-text.ts";

export type { OnModelText };

/** A piece of a model's reply text, as the provider streamed it (live: not in the outbox). */
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

/** What every recorded event carries besides its kind. */
export interface RecordedEventBase {
  jobId: string;
  /** The event's id in the outbox: increasing in commit order; `statek.events({ afterId })` resumes after it. */
  id: number;
  /** When it was recorded (epoch milliseconds, the store's clock). */
  at: number;
}

/** The job's status changed (`reason`: why it failed or was cancelled, or what restarted it). */
export interface StatusChangeEvent extends RecordedEventBase {
  kind: "status-change";
  status: JobStatus;
  previousStatus: JobStatus;
  reason?: string;
}

/** A step of the job committed; `version` is the job's version after it, `status` where the step left it. */
export interface StepEndEvent extends RecordedEventBase {
  kind: "step-end";
  status: JobStatus;
  version: number;
}

/** A console entry the job's code produced (committed with its step). */
export interface ConsoleEvent extends RecordedEventBase {
  kind: "console";
  stream: ConsoleRecord["stream"];
  text: string;
}

/** A durable future the job waits for was settled (resolved, rejected, or cancelled with its job). */
export interface FutureSettledEvent extends RecordedEventBase {
  kind: "future-settled";
  key: string;
  state: "resolved" | "rejected" | "cancelled";
}

/** The job was submitted (recorded for stores shared between processes: workers there learn of it so). */
export interface JobSubmittedEvent extends RecordedEventBase {
  kind: "job-submitted";
  role: string;
}

/** A message was pushed to the job (`pushMessage`); `inbox` is its number in the job's inbox. */
export interface MessagePushedEvent extends RecordedEventBase {
  kind: "message-pushed";
  inbox: number;
}

/**
 * An agent's circuit breaker opened — `jobId` is the job whose failure opened it — or was reset (`jobId` is
 * empty then: no job did it).
 */
export interface AgentBreakerEvent extends RecordedEventBase {
  kind: "agent-breaker";
  role: string;
  state: "open" | "closed";
  /** Why it opened. */
  reason?: string;
}

/**
 * A recorded event of a kind this version does not know (an application's `store.appendEvents`, a newer
 * version's), or one whose data cannot be read (`error` says why; `data` is then `null`). Kept, never dropped.
 */
export interface OtherJobEvent extends RecordedEventBase {
  kind: "other";
  /** The kind as stored. */
  name: string;
  data: JsonValue;
  error?: string;
}

/** An event read from the store's outbox. */
export type RecordedJobEvent =
  | StatusChangeEvent | StepEndEvent | ConsoleEvent | FutureSettledEvent | JobSubmittedEvent | MessagePushedEvent | AgentBreakerEvent | OtherJobEvent;

/** An event heard in this process as it happens, never stored. */
export type LiveJobEvent = ModelTextEvent;

/** Every job event `statek.events()` yields. */
export type JobEvent = RecordedJobEvent | LiveJobEvent;

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
