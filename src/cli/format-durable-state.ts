/**
 * @module
 * What `statek show` prints of a job's durable state: the current cell's journal (each crossing by `seq`:
 * what it called and whether its result is recorded, is still running, or is in doubt) and the futures it
 * waits for (timers with their due time, messages, application futures, approvals, child jobs).
 */
import type { FutureRow, Journal, JsonValue, Lease } from "../store/store.ts";
import { decodeJournalItem } from "../workspace/cell-journal.ts";
import { formatError } from "../tools/call-tool.ts";
import { formatLocalTime, formatRelativeTime } from "../format/format-time.ts";
import { readField } from "./read-field.ts";
import { truncateLine } from "./truncate-text.ts";

/** One crossing of the journal, folded from its items. */
interface Crossing {
  part: string;
  seq: number;
  op: string;
  what: string;
  state: "done" | "intent";
}

/**
 * The journal's lines: a heading, then one line per crossing in order. An `intent` without its result is
 * `running` while the job's lease is live (a worker is in the call now) and `in doubt` otherwise.
 */
export function formatJournal(journal: Journal, lease: Lease | null, now: number): string[] {
  const crossings: Crossing[] = [];
  const bySeq = new Map<string, Crossing>();
  let settled = 0;
  let deliveries = 0;
  const problems: string[] = [];
  for (const entry of journal.entries) {
    const data = readField(entry, "data");
    if (!data.ok) {
      problems.push(`  #${entry.index}  ✗ ${data.error}`);
      continue;
    }
    let item;
    try {
      item = decodeJournalItem(data.value);
    } catch (error) {
      problems.push(`  #${entry.index}  ✗ ${formatError(error)}`);
      continue;
    }
    const part = partOf(data.value);
    switch (item.t) {
      case "msg":
      case "intent": {
        const crossing: Crossing = { part, seq: item.seq, op: item.op, what: item.w, state: item.t === "msg" ? "done" : "intent" };
        crossings.push(crossing);
        bySeq.set(`${part}:${item.seq}`, crossing);
        break;
      }
      case "done": {
        const crossing = bySeq.get(`${part}:${item.seq}`);
        if (crossing) crossing.state = "done";
        break;
      }
      case "settle":
        settled++;
        break;
      case "deliver":
        deliveries++;
        break;
    }
  }
  const running = lease !== null && lease.until > now;
  // Plain words for the operator: a crossing is a call out of the sandbox (a tool, a wait, the clock).
  const lines = [
    `journal   cell ${journal.cell} in progress: ${crossings.length} call${crossings.length === 1 ? "" : "s"} out of the sandbox recorded` +
      ` (${journal.entries.length} journal entries; ${settled} result${settled === 1 ? "" : "s"} settled, ${deliveries} deliver${deliveries === 1 ? "y" : "ies"})`,
  ];
  for (const crossing of crossings) {
    const state = crossing.state === "done" ? "done" : running ? "running" : "in doubt";
    const seq = `${crossing.part ? `${crossing.part} ` : ""}#${crossing.seq}`;
    lines.push(`  ${seq.padEnd(10)} ${state.padEnd(8)}  ${truncateLine(crossing.what || crossing.op, 100)}`);
  }
  lines.push(...problems);
  return lines;
}

/** The part of the step a journal item belongs to (formal calls and cells share one journal), if tagged. */
function partOf(value: JsonValue): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "";
  return typeof value.p === "string" ? value.p : "";
}

/** The waits' lines: a heading, then one line per waiting future. */
export function formatWaits(futures: readonly FutureRow[], now: number): string[] {
  const lines = [`waits     ${futures.length} pending`];
  for (const future of futures) {
    const kind = readField(future, "kind");
    const wakeAt = readField(future, "wakeAt");
    const data = readField(future, "data");
    const parts = [kind.ok ? kind.value.padEnd(8) : `✗ ${kind.error}`, future.key];
    if (!wakeAt.ok) parts.push(`✗ ${wakeAt.error}`);
    else if (wakeAt.value !== null) parts.push(`${kind.ok && kind.value === "timer" ? "due" : "times out"} ${formatLocalTime(wakeAt.value)} (${formatRelativeTime(wakeAt.value, now)})`);
    if (!data.ok) parts.push(`✗ ${data.error}`);
    else if (data.value !== null) parts.push(truncateLine(JSON.stringify(data.value), 120));
    lines.push(`  ${parts.join("  ")}`);
  }
  return lines;
}
