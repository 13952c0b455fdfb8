/**
 * @module
 * `statek.pushMessage`: a user message delivered into a job as a `user-message` record. A `DONE` dialog job
 * starts again (`STARTED`), with fresh turn and exception allowances; the message is the user's next turn.
 * In the other styles the message is shown with the console output of the step it arrived in. A job that has
 * finished for good (`FAILED`, `CANCELLED`, a `DONE` job that is not a dialog) refuses it: `allowed-actions.ts`.
 */
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { JobFinishedError } from "../../errors/job-finished-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { HistoryRow, JobCommit, Store } from "../../store/store.ts";
import { allowedActions } from "./allowed-actions.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData } from "../history/history.ts";
import { encodeHistoryRow, historyRecord } from "../history/history-codec.ts";
import type { JobSessions } from "../step/job-sessions.ts";
import { MESSAGE_RESTART_REASON, restartedState } from "../step/job-state.ts";
import { recordEvents } from "../events/outbox-events.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import type { FutureSignals } from "../../durable/future-signals.ts";
import { messageKey } from "../../durable/job-futures.ts";

/** Conflicting commits (another process stepping the job) are retried this often before giving up. */
const ATTEMPTS = 5;

/** Appends a user message to job `id` (restarting a `DONE` dialog job) and commits it. */
export async function pushUserMessage(store: Store, sessions: JobSessions, signals: FutureSignals, id: string, message: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const row = await withStoreRetries(() => store.getJob(id));
    if (!row) throw new NoSuchJobError({ jobId: id });
    if (!allowedActions(row).pushMessage) throw new JobFinishedError({ jobId: id, status: row.status });
    const history: HistoryRow[] = [];
    const records: HistoryRecord[] = [];
    const append = <K extends HistoryKind>(kind: K, data: HistoryRecordData[K]) => {
      const [seq, at] = [row.historyLength + history.length, Date.now()];
      history.push(encodeHistoryRow(seq, kind, at, data));
      records.push(historyRecord(seq, kind, at, data));
    };
    // Messages are numbered in the job's inbox: the n-th `waitForMessage()` of the job gets message n.
    const inbox = typeof row.state.messagesPushed === "number" ? row.state.messagesPushed : 0;
    append("user-message", { text: message, inbox });
    // The event tells workers of other processes that the job may be runnable (a DONE dialog job restarts).
    // The wait for this message, when the job has opened it already, is settled in the same commit: a pusher that
    // stops (or loses its database) after the commit must not leave a suspended job waiting for a message it has.
    const key = messageKey(id, inbox);
    const commit: JobCommit = {
      id, expectedVersion: row.version, appendHistory: history, job: { state: { ...row.state, messagesPushed: inbox + 1 } },
      events: [{ kind: "message-pushed", data: { inbox } }],
      settleFutures: [{ key, settlement: { state: "resolved", value: message, door: "message" } }],
    };
    if (row.status === "DONE") {
      append("status", { status: "STARTED", reason: MESSAGE_RESTART_REASON });
      commit.job = { status: "STARTED", exitStatus: null, state: restartedState({ ...row.state, messagesPushed: inbox + 1 }, row.turns) };
    }
    // A restarted dialog job's status change reaches `statek.events()` with the commit.
    commit.events = recordEvents(records, row.status);
    try {
      await withStoreRetries(() => store.commit(commit));
    } catch (error) {
      // A conflict after a lost answer may be this very commit, landed: the message is never appended twice.
      if (!(error instanceof JobConflictError) || !(await landed(store, id, history[0]!, { text: message, inbox }))) {
        if (error instanceof JobConflictError && attempt < ATTEMPTS) continue;
        throw error;
      }
    }
    // A wait opened later finds the message in the job's history (job-futures.ts); a step that opened it while
    // this commit raced its own is woken by its rebase (rebase-commit.ts). A cell of this process that waits for
    // it now hears it at once.
    signals.emit(key, { value: message });
    signals.wake(id);
    // Keep a warm session current, so the next step need not re-read the history.
    const session = sessions.peek(id);
    if (session && session.version === row.version) {
      session.version = row.version + 1;
      session.history.push(...records);
    }
    return;
  }
}

/**
 * True when the job's history holds `sent` as this push wrote it — same place, kind, time and text: a commit
 * retried after its answer was lost (the connection dropped with the `COMMIT` already sent) had landed.
 */
async function landed(store: Store, id: string, sent: HistoryRow, message: { text: string; inbox: number }): Promise<boolean> {
  const [row] = await withStoreRetries(() => store.getHistory(id, { fromSeq: sent.seq }));
  if (row === undefined || row.seq !== sent.seq || row.kind !== sent.kind || row.at !== sent.at) return false;
  const data = row.data;
  return typeof data === "object" && data !== null && !Array.isArray(data) && data.text === message.text && data.inbox === message.inbox;
}
