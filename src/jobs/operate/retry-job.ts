/**
 * @module
 * `statek.retryJob(id)`: a `FAILED` job resumes from its last committed state — its variables, history, pending
 * reply and current cell's journal as the failing step left them — in the status it was running in before it
 * failed. Its error is cleared, a `status` record says it was retried, and its turn and exception allowances
 * start again (a job that failed on `maxTurns` or `maxExceptions` gets a fresh allowance; token and cost limits
 * count over the whole job, so a job that failed on them fails again at its next model call). A failed warmup
 * block runs again. Error handlers that ran when it failed have been taken off the job and do not run again.
 */
import { InvalidJobStatusError } from "../../errors/invalid-job-status-error.ts";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { HistoryRow, JobRow, JobStatus, JsonValue, Store } from "../../store/store.ts";
import type { HistoryRecord } from "../history/history.ts";
import { decodeHistory, encodeHistoryRow, historyRecord } from "../history/history-codec.ts";
import { recordEvents } from "../events/outbox-events.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import { failedWarmupBlock } from "../step/warmup.ts";

/** Commits that lose to another write are tried again this often. */
const ATTEMPTS = 5;

/** The reason of the `status` record a retry appends. */
export const RETRY_REASON = "retried";

/**
 * Resumes `FAILED` job `id` (see the module comment).
 *
 * @throws {NoSuchJobError} For an unknown job.
 * @throws {InvalidJobStatusError} For a job that is not `FAILED`.
 * @throws {CorruptRecordError} When the job's history cannot be read (the retry would fail it again).
 */
export async function retryJob(store: Store, id: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const row = await withStoreRetries(() => store.getJob(id));
    if (!row) throw new NoSuchJobError({ jobId: id });
    if (row.status !== "FAILED") {
      throw new InvalidJobStatusError({ jobId: id, status: row.status, operation: "retryJob", expected: "only a FAILED job can be retried" });
    }
    const history = decodeHistory(id, await withStoreRetries(() => store.getHistory(id)));
    const { status, state } = resumption(row, history);
    const at = Date.now();
    const data = { status, reason: RETRY_REASON };
    const rows: HistoryRow[] = [encodeHistoryRow(row.historyLength, "status", at, data)];
    const records: HistoryRecord[] = [historyRecord(row.historyLength, "status", at, data)];
    try {
      await withStoreRetries(() => store.commit({
        id,
        expectedVersion: row.version,
        job: { status, error: null, wakeAt: null, state },
        appendHistory: rows,
        events: recordEvents(records, "FAILED"),
      }));
      return;
    } catch (error) {
      if (!(error instanceof JobConflictError) || attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The status a failed job resumes in, and its runner state with fresh allowances. */
function resumption(row: JobRow, history: readonly HistoryRecord[]): { status: JobStatus; state: Record<string, JsonValue> } {
  const failedAt = history.findLastIndex((record) => record.kind === "status" && record.data.status === "FAILED");
  const failure = history[failedAt];
  const before = history.slice(0, Math.max(failedAt, 0)).findLast((record) => record.kind === "status");
  const previous = before?.kind === "status" ? before.data.status : "READY";
  const state: Record<string, JsonValue> = { ...row.state, exceptions: 0, consecutiveExceptions: 0, cycleStartTurn: row.turns };
  switch (previous) {
    case "READY":
      return { status: "READY", state };
    case "WARMING_UP": {
      // The block that failed runs again; the job failed for another reason mid-warmup resumes where it was.
      const block = failedWarmupBlock(failure?.kind === "status" ? failure.data.reason : undefined);
      if (block !== undefined) state.warmupBlock = block;
      return { status: "WARMING_UP", state };
    }
    case "SUSPENDED":
      // It failed after it was woken: it runs on where the wait had stopped it.
      return { status: row.state.suspendedIn === "warmup" ? "WARMING_UP" : "STARTED", state };
    default:
      return { status: "STARTED", state };
  }
}
