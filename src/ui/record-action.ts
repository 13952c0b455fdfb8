/**
 * @module
 * Writes down who did an operator action: an `operator-action` history record on the job and an event of the
 * same kind in the outbox (one commit, so live pages learn of it). Written after the action succeeded, so a
 * failed action leaves no record claiming it happened.
 */
import { JobConflictError } from "../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import type { OperatorActionRecord } from "../jobs/history/history.ts";
import { encodeHistoryRow } from "../jobs/history/history-codec.ts";
import { withStoreRetries } from "../store/store-retries.ts";
import type { Store } from "../store/store.ts";

/** Another step or client committing in between is retried this often. */
const ATTEMPTS = 8;

/**
 * Appends the record to job `jobId`'s history. Like `pushMessage` this is a client commit: it bumps the job's
 * version, so a step of that job committing at the same moment sees a conflict (and its runner retries it).
 */
export async function recordOperatorAction(store: Store, jobId: string, action: OperatorActionRecord): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const row = await withStoreRetries(() => store.getJob(jobId));
    if (!row) throw new NoSuchJobError({ jobId });
    const record = encodeHistoryRow(row.historyLength, "operator-action", Date.now(), action);
    try {
      await withStoreRetries(() => store.commit({
        id: jobId,
        expectedVersion: row.version,
        appendHistory: [record],
        events: [{ kind: "operator-action", data: { action: action.action, by: action.by } }],
      }));
      return;
    } catch (error) {
      if (error instanceof JobConflictError && attempt < ATTEMPTS) continue;
      throw error;
    }
  }
}
