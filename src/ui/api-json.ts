/**
 * @module
 * The JSON the API returns: jobs as plain objects (times as ISO strings; a field of a damaged row that cannot be
 * read is left out and named in `unreadable`), a job's details with its history records decoded where they can
 * be (a record that cannot be read carries `error` instead of `data`).
 */
import { decodeHistoryRecord, isHistoryKind } from "../jobs/history/history-codec.ts";
import type { FutureRow, JobRow } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import type { JobDetails } from "./job-details.ts";
import { UI_ACTION_NAMES, type UiActions } from "./ui-actions.ts";

const JOB_FIELDS = ["role", "status", "parentId", "turns", "createdAt", "updatedAt", "wakeAt", "cell", "error", "exitStatus", "usage", "params"] as const;
const TIME_FIELDS = new Set(["createdAt", "updatedAt", "wakeAt"]);

/** A job row as JSON. */
export function jobJson(row: JobRow): Record<string, unknown> {
  const json: Record<string, unknown> = { id: row.id };
  const unreadable: string[] = [];
  for (const field of JOB_FIELDS) {
    try {
      const value = row[field];
      json[field] = TIME_FIELDS.has(field) && typeof value === "number" ? new Date(value).toISOString() : value;
    } catch {
      unreadable.push(field);
    }
  }
  try {
    if (row.forkedFrom !== undefined) json["forkedFrom"] = { ...row.forkedFrom };
  } catch {
    unreadable.push("forkedFrom");
  }
  if (unreadable.length) json["unreadable"] = unreadable;
  return json;
}

/** A future as JSON. */
export function futureJson(future: FutureRow): Record<string, unknown> {
  const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());
  return { key: future.key, kind: future.kind, state: future.state, wakeAt: iso(future.wakeAt), data: future.data, createdAt: iso(future.createdAt) };
}

/** Which actions this UI can do (every one: the API's clients read the list). */
export function actionsJson(actions: UiActions): Record<string, boolean> {
  return Object.fromEntries(UI_ACTION_NAMES.map((name) => [name, typeof actions[name] === "function"]));
}

/** A job in full, as `GET /api/jobs/:id` returns it. */
export function detailsJson(details: JobDetails, actions: UiActions): Record<string, unknown> {
  return {
    job: jobJson(details.job),
    parent: details.parent ? jobJson(details.parent) : null,
    children: details.children.map(jobJson),
    history: details.history.map((row) => {
      const base = { seq: row.seq, kind: row.kind, at: new Date(row.at).toISOString() };
      if (!isHistoryKind(row.kind)) return { ...base, data: row.data, unknownKind: true };
      try {
        return { ...base, data: decodeHistoryRecord(details.job.id, row).data };
      } catch (error) {
        return { ...base, error: formatError(error) };
      }
    }),
    variables: details.variables,
    memory: details.memory,
    exitValue: details.exitValue,
    journal: details.journal,
    waits: details.waits.map(futureJson),
    approvals: details.approvals,
    actions: actionsJson(actions),
  };
}
