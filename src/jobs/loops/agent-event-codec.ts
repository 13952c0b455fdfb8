/**
 * @module
 * An agent event as the store queues it: the value encoded by the workspace codec when it is pushed (so a value
 * that cannot be stored is refused then, naming what is wrong, and never lost later), with its type name for the
 * job's `{shared_var_names}`, in a versioned envelope that is decoded and checked when the event is taken.
 */
import { z } from "zod";
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { encodeInitialVariables, type SubmitScope } from "../operate/submit-values.ts";

/** The envelope's version; a newer one is refused (a newer STATEK pushed it). */
const VERSION = 1;
const ENVELOPE = z.object({ v: z.literal(VERSION), type: z.string(), blob: z.string() }).strict();

/** A queued event, decoded: the variable's encoded value and its type name. */
export interface QueuedEvent {
  blob: string;
  type: string;
}

/** Encodes `event` for `role`'s queue. @throws {TypeError} Naming what cannot be stored. */
export function encodeAgentEvent(event: unknown, scope: SubmitScope): string {
  const { rows, types } = encodeInitialVariables({ event }, scope, "pushAgentEvent");
  return JSON.stringify({ v: VERSION, type: types[0]!.type, blob: rows[0]!.blob });
}

/** Decodes a queued event's stored text. @throws {CorruptRecordError} When it is not an envelope this version reads. */
export function decodeAgentEvent(text: string, where: { role: string; id: number }): QueuedEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new CorruptRecordError({ jobId: `(agent ${where.role})`, location: `agent_events[${where.id}].data`, cause });
  }
  const checked = ENVELOPE.safeParse(parsed);
  if (!checked.success) {
    const cause = new Error(`not a version ${VERSION} agent event: ${checked.error.issues.map((issue) => `${issue.path.join(".") || "event"}: ${issue.message}`).join("; ")}`);
    throw new CorruptRecordError({ jobId: `(agent ${where.role})`, location: `agent_events[${where.id}].data`, cause });
  }
  return { blob: checked.data.blob, type: checked.data.type };
}
