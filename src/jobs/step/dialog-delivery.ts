/**
 * @module
 * Sending a step's dialog messages to the agent's `onMessage` once the step's commit is durable (* nothing reaches the outside world before the write that records it). A crash before the commit sends
 * nothing — the step runs again and the model is asked again; a crash after it may leave messages unsent (at
 * most once), but the user never gets a message the job's history does not hold.
 *
 * A message whose `onMessage` throws (and the ones after it, which are then not sent) is reported to the model
 * by a second commit: the error on the console and, when the reply had ended the turn, the turn reopened
 * (`DONE` → `STARTED`), so the model is asked again — as when delivery failed inside the step.
 */
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import type { HistoryRow, JobStatus, Store } from "../../store/store.ts";
import { formatError } from "../../tools/call-tool.ts";
import type { Agent } from "../../agents/agent.ts";
import type { DialogMessage } from "./dialog.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData } from "../history/history.ts";
import { encodeHistoryRow, historyRecord } from "../history/history-codec.ts";
import { recordEvents } from "../events/outbox-events.ts";
import { withStoreRetries } from "../../store/store-retries.ts";

/** The reopened turn's reason in history. */
export const UNDELIVERED_REASON = "a message did not reach the user";

/** A second commit that loses to another write (a pushed message) is tried again this often. */
const ATTEMPTS = 5;

/**
 * Sends `messages` to `agent.onMessage` in order, stopping at the first that fails. Resolves to the job's
 * status after reporting a failure, or `undefined` when every message was sent.
 */
export async function sendDialog(store: Store, agent: Agent, job: { id: string; role: string }, messages: readonly DialogMessage[]): Promise<JobStatus | undefined> {
  for (const [index, message] of messages.entries()) {
    try {
      await agent.onMessage?.(message.body, message.media, { job });
    } catch (thrown) {
      const later = messages.length - index - 1;
      const what = later === 0 ? "the message" : `the message and the ${later === 1 ? "one" : later} after it`;
      return reportUndelivered(store, job.id, `${formatError(thrown)} (${what} did not reach the user)`);
    }
  }
  return undefined;
}

/** Commits the delivery failure `text` to the console, reopening a finished turn. */
async function reportUndelivered(store: Store, jobId: string, text: string): Promise<JobStatus | undefined> {
  for (let attempt = 1; ; attempt++) {
    const row = await withStoreRetries(() => store.getJob(jobId));
    if (!row) return undefined;
    const rows: HistoryRow[] = [];
    const records: HistoryRecord[] = [];
    const append = <K extends HistoryKind>(kind: K, data: HistoryRecordData[K]) => {
      const [seq, at] = [row.historyLength + rows.length, Date.now()];
      rows.push(encodeHistoryRow(seq, kind, at, data));
      records.push(historyRecord(seq, kind, at, data));
    };
    append("console", { stream: "error", text });
    const reopen = row.status === "DONE";
    if (reopen) append("status", { status: "STARTED", reason: UNDELIVERED_REASON });
    try {
      await withStoreRetries(() => store.commit({
        id: jobId, expectedVersion: row.version, appendHistory: rows, events: recordEvents(records, row.status),
        ...(reopen ? { job: { status: "STARTED" } } : {}),
      }));
      return reopen ? "STARTED" : row.status;
    } catch (error) {
      if (!(error instanceof JobConflictError) || attempt >= ATTEMPTS) throw error;
    }
  }
}
