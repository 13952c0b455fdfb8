/**
 * @module
 * A job's history as a timeline: the one model that `statek show` renders as text and the job page as HTML.
 * Records are decoded and checked (`jobs/history/history-codec.ts`); one that cannot be read is an item that
 * says why, never skipped, and one of a kind this version does not know is kept with its raw data. Records
 * are grouped into sections, each opened by a record that starts something (the submission, a model turn, a
 * warmup block, a user message, a status change, an operator's action); records before any of those form a
 * section without an opener.
 */
import type { HistoryKind, HistoryRecord } from "../jobs/history/history.ts";
import { decodeHistoryRecord, isHistoryKind } from "../jobs/history/history-codec.ts";
import type { HistoryRow } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";

/** One entry of the timeline. */
export type TimelineItem =
  | { readonly kind: "record"; readonly seq: number; readonly record: HistoryRecord }
  /** A record of a kind this version does not know, with its data as stored. */
  | { readonly kind: "unknown-kind"; readonly seq: number; readonly recordKind: string; readonly data: unknown }
  /** A record that could not be decoded, and why. */
  | { readonly kind: "unreadable"; readonly seq: number; readonly recordKind: string; readonly error: string };

/** A group of items: what one record started, and what followed until the next such record. */
export interface TimelineSection {
  /** A stable anchor for the section (`submitted`, `turn-3-17`, `status-40`, …). */
  readonly id: string;
  /** The record that opened the section; absent for records before the first opener. */
  readonly opener: Extract<TimelineItem, { kind: "record" }> | undefined;
  readonly items: readonly TimelineItem[];
}

/** The kinds of record that open a section. */
const OPENERS: ReadonlySet<HistoryKind> = new Set(["submitted", "model-response", "warmup", "user-message", "status", "operator-action"]);

/** The item of one stored row. */
export function timelineItem(jobId: string, row: HistoryRow): TimelineItem {
  if (!isHistoryKind(row.kind)) return { kind: "unknown-kind", seq: row.seq, recordKind: String(row.kind), data: row.data };
  try {
    return { kind: "record", seq: row.seq, record: decodeHistoryRecord(jobId, row) };
  } catch (error) {
    return { kind: "unreadable", seq: row.seq, recordKind: row.kind, error: formatError(error) };
  }
}

function sectionId(record: HistoryRecord): string {
  switch (record.kind) {
    case "submitted": return "submitted";
    case "model-response": return `turn-${record.data.turn}-${record.seq}`;
    case "warmup": return `warmup-${record.data.block}-${record.seq}`;
    case "user-message": return `message-${record.seq}`;
    case "status": return `status-${record.seq}`;
    default: return `${record.kind}-${record.seq}`;
  }
}

/** The timeline of a job's history rows, in order. */
export function buildTimeline(jobId: string, history: readonly HistoryRow[]): TimelineSection[] {
  const sections: { id: string; opener: TimelineSection["opener"]; items: TimelineItem[] }[] = [];
  for (const row of history) {
    const item = timelineItem(jobId, row);
    if (item.kind === "record" && OPENERS.has(item.record.kind)) {
      sections.push({ id: sectionId(item.record), opener: item, items: [] });
      continue;
    }
    if (sections.length === 0) sections.push({ id: `h${row.seq}`, opener: undefined, items: [] });
    sections.at(-1)!.items.push(item);
  }
  return sections;
}

/** A model reply's ending when it is worth a word (`length (max_tokens)`): a reply cut off or filtered was not run. */
export function unusualFinish(reply: { finishReason?: string; rawFinishReason?: string }): string | undefined {
  const reason = reply.finishReason;
  if (!reason || reason === "stop" || reason === "tool-calls") return undefined;
  return reply.rawFinishReason ? `${reason} (${reply.rawFinishReason})` : reason;
}

/** The variables a step wrote and deleted: `+name`, `−name`. */
export function variableChanges(data: { put: readonly string[]; deleted: readonly string[] }): string[] {
  return [...data.put.map((name) => `+${name}`), ...data.deleted.map((name) => `−${name}`)];
}

/** What a post-processor did to a reply. */
export function postProcessVerdict(data: { veto?: string; draft?: unknown }): "vetoed" | "rewrote" | "noted" {
  return data.veto !== undefined ? "vetoed" : data.draft !== undefined ? "rewrote" : "noted";
}

/**
 * The tool whose error the console error at `items[index]` repeats — the error a tool call raised, printed
 * again as the cell's uncaught error — or `undefined`. Views show such an error once, with the tool call.
 */
export function repeatedToolError(items: readonly TimelineItem[], index: number): string | undefined {
  const item = items[index];
  if (item?.kind !== "record" || item.record.kind !== "console" || item.record.data.stream !== "error") return undefined;
  const text = item.record.data.text.trim();
  for (let earlier = index - 1; earlier >= 0; earlier--) {
    const before = items[earlier]!;
    if (before.kind !== "record" || before.record.kind !== "tool-call") continue;
    const error = before.record.data.error?.trim();
    if (error && (text === error || text.startsWith(`${error}\n`))) return before.record.data.name;
  }
  return undefined;
}
