/**
 * @module
 * The recorded job events (`job-events.ts`) as the store's outbox holds them: written with the commit that
 * makes the change they describe ({@link recordEvents}, {@link stepEvents}), and decoded when read
 * ({@link decodeEvent}) — checked field by field, since a row may be damaged or written by somebody else.
 */
import { z } from "zod";
import { JOB_STATUSES, type JobEventRow, type JobStatus, type JsonValue, type NewJobEvent } from "../../store/store.ts";
import { isJobStatus } from "../../store/store-rules.ts";
import type { ConsoleRecord, HistoryRecord } from "../history/history.ts";
import type { RecordedJobEvent } from "./job-events.ts";
import { errorMessage } from "../../errors/error-text.ts";

const CONSOLE_STREAMS = ["out", "err", "echo", "error", "notice"] as const satisfies ReadonlyArray<ConsoleRecord["stream"]>;

/** The data of each known kind, as stored (the event's `jobId`, `id` and `at` are the row's). */
const EVENT_DATA = {
  "status-change": z.object({ status: z.enum(JOB_STATUSES), previousStatus: z.enum(JOB_STATUSES), reason: z.string().optional() }),
  "step-end": z.object({ status: z.enum(JOB_STATUSES), version: z.number().int().nonnegative() }),
  console: z.object({ stream: z.enum(CONSOLE_STREAMS), text: z.string() }),
  "future-settled": z.object({ key: z.string(), state: z.enum(["resolved", "rejected", "cancelled"]) }),
  "job-submitted": z.object({ role: z.string() }),
  "message-pushed": z.object({ inbox: z.number().int().nonnegative() }),
  "agent-breaker": z.object({ role: z.string(), state: z.enum(["open", "closed"]), reason: z.string().optional() }),
} as const;

/**
 * The events a commit's history records stand for: each status change (`from` is the job's status before the
 * commit) and each console entry, in record order.
 */
export function recordEvents(records: readonly HistoryRecord[], from: JobStatus): NewJobEvent[] {
  const events: NewJobEvent[] = [];
  let previous = from;
  for (const record of records) {
    if (record.kind === "status") {
      const status = record.data.status;
      if (!isJobStatus(status)) continue;
      const data: Record<string, JsonValue> = { status, previousStatus: previous };
      if (record.data.reason !== undefined) data.reason = record.data.reason;
      events.push({ kind: "status-change", data });
      previous = status;
    } else if (record.kind === "console") {
      events.push({ kind: "console", data: { stream: record.data.stream, text: record.data.text } });
    }
  }
  return events;
}

/** The events of a step's commit: its records' events, then `step-end` with the job's version after it. */
export function stepEvents(records: readonly HistoryRecord[], from: JobStatus, to: JobStatus, version: number): NewJobEvent[] {
  return [...recordEvents(records, from), { kind: "step-end", data: { status: to, version } }];
}

/** A stored event as the application sees it; one that cannot be read is an `other` event saying why. */
export function decodeEvent(row: JobEventRow): RecordedJobEvent {
  // Every field of a stored row throws when it cannot be read; the id is the table's key and always can.
  const problems: string[] = [];
  const read = <T>(field: () => T, fallback: T): T => {
    try {
      return field();
    } catch (error) {
      problems.push(errorMessage(error));
      return fallback;
    }
  };
  const base = { id: row.id, jobId: read(() => row.jobId, ""), at: read(() => row.at, 0) };
  const kind = read(() => row.kind, "");
  const data = read<JsonValue>(() => row.data, null);
  if (problems.length) return { ...base, kind: "other", name: kind, data, error: problems.join("; ") };
  const malformed = (error: z.ZodError): RecordedJobEvent => {
    const problem = error.issues.map((issue) => `${issue.path.join(".") || "data"}: ${issue.message}`).join("; ");
    return { ...base, kind: "other", name: kind, data, error: `malformed ${kind} event: ${problem}` };
  };
  switch (kind) {
    case "status-change": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      if (!parsed.success) return malformed(parsed.error);
      const { status, previousStatus, reason } = parsed.data;
      return { ...base, kind, status, previousStatus, ...(reason === undefined ? {} : { reason }) };
    }
    case "step-end": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      return parsed.success ? { ...base, kind, ...parsed.data } : malformed(parsed.error);
    }
    case "console": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      return parsed.success ? { ...base, kind, ...parsed.data } : malformed(parsed.error);
    }
    case "future-settled": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      return parsed.success ? { ...base, kind, ...parsed.data } : malformed(parsed.error);
    }
    case "job-submitted": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      return parsed.success ? { ...base, kind, ...parsed.data } : malformed(parsed.error);
    }
    case "message-pushed": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      return parsed.success ? { ...base, kind, ...parsed.data } : malformed(parsed.error);
    }
    case "agent-breaker": {
      const parsed = EVENT_DATA[kind].safeParse(data);
      if (!parsed.success) return malformed(parsed.error);
      const { role, state, reason } = parsed.data;
      return { ...base, kind, role, state, ...(reason === undefined ? {} : { reason }) };
    }
    default:
      return { ...base, kind: "other", name: kind, data };
  }
}
