/**
 * @module
 * Turns SQLite rows back into store rows. A column that cannot be read does not throw here: it becomes a
 * property that throws {@link CorruptRecordError} when read, so one corrupt job never hides the others.
 */

import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { JOB_STATUSES } from "../store.ts";
import type { HistoryRow, JobRow, JobStatus } from "../store.ts";
import type { SqliteValue } from "./sqlite-config.ts";

/** The job fields stored as JSON text; each holds a JSON object. */
export const JSON_FIELDS = ["params", "metadata", "usage", "state"] as const;

/** Makes `key` a property that throws `error` when read, so one bad column fails only whoever reads it. */
function markCorrupt(target: object, key: string, error: CorruptRecordError): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      throw error;
    },
  });
}

function parseObject(text: SqliteValue): Record<string, never> {
  const value: unknown = JSON.parse(String(text));
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not a JSON object");
  return value as Record<string, never>;
}

/** A `jobs` row as a {@link JobRow}; unreadable columns throw when read. */
export function decodeJob(row: Record<string, SqliteValue>): JobRow {
  const id = String(row["id"]);
  const optionalNumber = (value: SqliteValue) => (value === null ? null : Number(value));
  const optionalString = (value: SqliteValue) => (value === null ? null : String(value));
  const job: JobRow = {
    id,
    role: String(row["role"]),
    status: row["status"] as JobStatus,
    params: {},
    metadata: {},
    parentId: optionalString(row["parent_id"]!),
    createdAt: Number(row["created_at"]),
    updatedAt: Number(row["updated_at"]),
    version: Number(row["version"]),
    turns: Number(row["turns"]),
    pendingSeq: optionalNumber(row["pending_seq"]!),
    historyLength: Number(row["history_length"]),
    exitStatus: optionalString(row["exit_status"]!),
    error: optionalString(row["error"]!),
    usage: {},
    state: {},
  };
  if (!(JOB_STATUSES as readonly unknown[]).includes(job.status)) {
    const cause = new Error(`unknown status ${JSON.stringify(row["status"])}`);
    markCorrupt(job, "status", new CorruptRecordError({ jobId: id, location: "jobs.status", cause }));
  }
  for (const field of JSON_FIELDS) {
    try {
      job[field] = parseObject(row[field]!);
    } catch (cause) {
      markCorrupt(job, field, new CorruptRecordError({ jobId: id, location: `jobs.${field}`, cause }));
    }
  }
  return job;
}

/** A `job_history` row as a {@link HistoryRow}; unreadable `data` throws when read. */
export function decodeHistory(id: string, row: Record<string, SqliteValue>): HistoryRow {
  const record: HistoryRow = { seq: Number(row["seq"]), kind: String(row["kind"]), at: Number(row["at"]), data: null };
  try {
    record.data = JSON.parse(String(row["data"]));
  } catch (cause) {
    markCorrupt(record, "data", new CorruptRecordError({ jobId: id, location: `history[${record.seq}]`, cause }));
  }
  return record;
}
