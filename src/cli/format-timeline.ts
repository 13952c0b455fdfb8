/**
 * @module
 * A job's history as a readable timeline: one section per model turn (its code, then what running it did:
 * tool calls, console, variables), with the submission, user messages and status changes between them.
 */
import type { ConsoleRecord, HistoryRecord } from "../jobs/history/history.ts";
import type { HistoryRow } from "../store/store.ts";
import { buildTimeline, postProcessVerdict, repeatedToolError, unusualFinish, variableChanges, type TimelineItem } from "../format/timeline.ts";
import { formatError } from "../tools/call-tool.ts";
import { llmRepr } from "../tools/llm-repr.ts";
import { formatConsoleEntry } from "./format-console-entry.ts";
import { formatExitStatus } from "./format-exit-status.ts";
import { formatUsage } from "../format/format-usage.ts";
import { formatLocalTime } from "../format/format-time.ts";
import { formatRequestedCall, formatToolCall } from "./format-tool-call.ts";
import { prefixLines } from "./prefix-lines.ts";
import { CONSOLE_ENTRIES_PER_TURN, OUTPUT_LIMITS, RESULT_LIMITS, limitsFor, type TimelineOptions } from "./timeline-limits.ts";
import { truncateBlock, truncateLine } from "./truncate-text.ts";

/**
 * The timeline's lines, in history order: the shared timeline model (`format/timeline.ts`) as text. A record
 * that cannot be read is shown as such, not skipped; one of a kind this version does not know is shown raw.
 */
export function formatTimeline(jobId: string, history: readonly HistoryRow[], options: TimelineOptions): string[] {
  const lines: string[] = [];
  const flood = new ConsoleFlood(options);
  for (const section of buildTimeline(jobId, history)) {
    flood.reset(lines);
    const items = section.opener ? [section.opener, ...section.items] : section.items;
    for (const [index, item] of items.entries()) {
      if (item.kind === "record" && item.record.kind === "console" && flood.skips(item.record.data)) continue;
      flood.flush(lines);
      // A cell's uncaught error that repeats a tool call's error is shown once, with the call.
      const tool = repeatedToolError(items, index);
      const itemLines = tool === undefined ? formatItem(item, options) : [`  ✗ the cell stopped on the error of ${tool} shown above`];
      if (itemLines[0]?.startsWith("──") && lines.length) lines.push("");
      lines.push(...itemLines);
    }
  }
  flood.flush(lines);
  return lines;
}

function formatItem(item: TimelineItem, options: TimelineOptions): string[] {
  switch (item.kind) {
    case "unknown-kind":
      return [rule(item.recordKind), `  ${truncateLine(JSON.stringify(item.data), 300)}`];
    case "unreadable":
      return unreadable(item.seq, item.recordKind, item.error);
    case "record":
      try {
        return formatRecord(item.record, options);
      } catch (error) {
        return unreadable(item.seq, item.record.kind, formatError(error));
      }
  }
}

/** Cuts the console entries of one turn after the first few (errors and notices always show). */
class ConsoleFlood {
  readonly #options: TimelineOptions;
  #shown = 0;
  #skipped = 0;

  constructor(options: TimelineOptions) {
    this.#options = options;
  }

  skips(data: ConsoleRecord): boolean {
    const stream = data.stream;
    if (this.#options.full || stream === "error" || stream === "notice") return false;
    if (this.#shown < CONSOLE_ENTRIES_PER_TURN) {
      this.#shown++;
      return false;
    }
    this.#skipped++;
    return true;
  }

  flush(lines: string[]): void {
    if (this.#skipped === 0) return;
    lines.push(`  … ${this.#skipped.toLocaleString("en-US")} more console entr${this.#skipped === 1 ? "y" : "ies"} (--full shows all)`);
    this.#skipped = 0;
  }

  reset(lines: string[]): void {
    this.flush(lines);
    this.#shown = 0;
  }
}

function unreadable(seq: number, kind: string, error: string): string[] {
  return [rule(`history[${seq}] ${kind}`), `  ✗ cannot show this record: ${error}`];
}

function rule(title: string): string {
  return `── ${title} ──`;
}

function formatRecord(record: HistoryRecord, options: TimelineOptions): string[] {
  switch (record.kind) {
    case "submitted": {
      const lines = [rule(`submitted ${formatLocalTime(record.at)}`)];
      const vars = record.data.vars ?? [];
      if (vars.length) lines.push(`  vars: ${vars.map((entry) => `${entry.name}: ${entry.type}`).join(", ")}`);
      if (Object.keys(record.data.params ?? {}).length) {
        lines.push(...prefixLines(truncateBlock(llmRepr(record.data.params), limitsFor(options, RESULT_LIMITS)), "  params: "));
      }
      return lines;
    }
    case "user-message":
      return [rule("user"), ...prefixLines(truncateBlock(String(record.data.text), limitsFor(options, OUTPUT_LIMITS)), "    ")];
    case "model-response":
      return formatModelResponse(record.data, options);
    case "model-attempt": {
      const { attempt, error, retried, usage, cost, text } = record.data;
      const spent = usage ? ` (${formatUsage(usage, cost)})` : "";
      const lines = [`  ✗ model attempt ${attempt} failed after ${Number(record.data.durationMs).toLocaleString("en-US")} ms${spent}${retried ? ", retried" : ""}:`];
      lines.push(...prefixLines(String(error).split("\n"), "    "));
      if (typeof text === "string" && text !== "") lines.push(...prefixLines(truncateBlock(text, limitsFor(options, OUTPUT_LIMITS)), "    partial: "));
      return lines;
    }
    case "console":
      return formatConsoleEntry(record.data, options);
    case "tool-call":
      return formatToolCall(record.data, options);
    case "variables":
      return [`  vars: ${variableChanges(record.data).join(" ")}`];
    case "warmup":
      return [rule(`warmup block ${record.data.block + 1}${record.data.hidden ? " (hidden from the model)" : ""}`), ...prefixLines(String(record.data.code).split("\n"), "    ")];
    case "dialog": {
      const lines = prefixLines(truncateBlock(String(record.data.body), limitsFor(options, OUTPUT_LIMITS)), "  ✉ ");
      if (record.data.media !== undefined) lines.push(`    media: ${record.data.media}`);
      if (record.data.error !== undefined) lines.push(`  ✗ not delivered: ${record.data.error}`);
      return lines;
    }
    case "post-processed": {
      const { processor, veto, note } = record.data;
      const lines = [`  ⚑ ${processor} ${postProcessVerdict(record.data)} turn ${record.data.turn}${record.data.usage ? ` (${formatUsage(record.data.usage, record.data.cost)})` : ""}`];
      const message = veto ?? note;
      if (message !== undefined) lines.push(...prefixLines(truncateBlock(message, limitsFor(options, OUTPUT_LIMITS)), "    "));
      return lines;
    }
    case "status": {
      const lines = [rule(`status ${record.data.status}`)];
      if (record.data.exitStatus !== undefined) {
        lines.push(...prefixLines(truncateBlock(formatExitStatus(record.data.exitStatus), limitsFor(options, RESULT_LIMITS)), "  exit "));
      }
      if (record.data.reason !== undefined) {
        const marker = record.data.status === "FAILED" ? "  ✗ " : "  reason: ";
        lines.push(...prefixLines(String(record.data.reason).split("\n"), marker));
      }
      return lines;
    }
    case "approval": {
      const { requestId, tool, args, summary, approved, note, by, decidedAt } = record.data;
      const what = summary !== undefined ? JSON.stringify(summary) : `${tool}(${args ?? "…"})`;
      const lines = [`  ${approved ? "✓ approved" : "✗ denied"} by ${by} at ${new Date(decidedAt).toISOString()}: ${what} (${requestId})`];
      if (note) lines.push(...prefixLines(String(note).split("\n"), "    note: "));
      return lines;
    }
    case "child-ended": {
      const { childId, role, status, result, reason } = record.data;
      const lines = [`  child job ${childId} (${role}) ${status}`];
      if (result) lines.push(...prefixLines(truncateBlock(result, limitsFor(options, RESULT_LIMITS)), "    result: "));
      if (reason) lines.push(...prefixLines(String(reason).split("\n"), "    reason: "));
      return lines;
    }
    case "type-check": {
      const { part, outcome, errors, more, reason } = record.data;
      const count = errors.length + (more ?? 0);
      const codes = [...new Set(errors.map((error) => `TS${error.code}`))].join(", ");
      const found = count ? `${count} type error${count === 1 ? "" : "s"} (${codes})` : "";
      const where = part === "cell" ? "" : ` ${part}`;
      if (outcome === "refused") return [`  ✗ type check${where}: cell refused, not run — ${found}`];
      if (outcome === "warned") return [`  ⚠ type check${where}: ${found}; the cell ran (TYPE_CHECK warn)`];
      return [`  ⚠ type check${where}: not checked, the cell ran — ${reason ?? "no reason given"}`];
    }
    default:
      // Kinds without a layout of their own (error-handler) are shown as their data.
      return [rule(record.kind), `  ${truncateLine(JSON.stringify(record.data), options.full ? Infinity : 300)}`];
  }
}

function formatModelResponse(response: Extract<HistoryRecord, { kind: "model-response" }>["data"], options: TimelineOptions): string[] {
  const usage = response.usage ? ` · ${formatUsage(response.usage, response.cost)}` : "";
  const unusual = unusualFinish(response);
  const finish = unusual ? ` · finish: ${unusual}` : "";
  const lines = [rule(`turn ${response.turn} · model (${response.model})${usage}${finish}`)];
  for (const part of response.reasoning ?? []) {
    if (part.text.trim()) lines.push(...prefixLines(truncateBlock(part.text.trim(), limitsFor(options, RESULT_LIMITS)), "  thinking: "));
  }
  const body = response.code ?? response.text;
  if (body.trim()) lines.push(...prefixLines(body.split("\n"), "    "));
  else if (!response.toolCalls.length) lines.push("    (empty reply)");
  for (const call of response.toolCalls) lines.push(formatRequestedCall(call, options));
  return lines;
}
