/**
 * @module
 * The approvals inbox's content: every pending approval request across jobs, oldest first, with the agent and
 * status of the job that asks (one read per job shown).
 */
import type { JobRow, Store } from "../store/store.ts";
import type { PendingApproval, UiActions } from "./ui-actions.ts";

/** Requests the inbox shows; it says so when there are more. */
export const INBOX_LIMIT = 200;

/** The inbox. */
export interface Inbox {
  approvals: PendingApproval[];
  /** The jobs that ask, by id (a job deleted since is absent). */
  jobs: ReadonlyMap<string, JobRow>;
  /** Whether more requests wait than are shown. */
  more: boolean;
}

/** Reads the pending requests and their jobs. */
export async function loadInbox(store: Store, actions: UiActions): Promise<Inbox> {
  const listed = await actions.pendingApprovals({ limit: INBOX_LIMIT + 1 });
  const approvals = listed.slice(0, INBOX_LIMIT);
  const ids = [...new Set(approvals.map((approval) => approval.jobId))];
  const rows = await Promise.all(ids.map((id) => store.getJob(id)));
  const jobs = new Map<string, JobRow>();
  rows.forEach((row) => row && jobs.set(row.id, row));
  return { approvals, jobs, more: listed.length > INBOX_LIMIT };
}
