/**
 * @module
 * A tool call in the timeline: `→ findEmptySlot({…}) = <result>` or `✗ moveMeeting({…}) threw <error>`.
 * Errors are shown whole; results and arguments are cut unless `--full`.
 */
import type { RecordedToolCall } from "../jobs/history/history.ts";
import type { ToolCallRecord } from "../tools/call-tool.ts";
import { llmRepr } from "../tools/llm-repr.ts";
import { prefixLines } from "./prefix-lines.ts";
import { ARGUMENTS_MAX_CHARS, RESULT_LIMITS, limitsFor, type TimelineOptions } from "./timeline-limits.ts";
import { truncateBlock, truncateLine } from "./truncate-text.ts";

/** The lines of one `tool-call` record. */
export function formatToolCall(call: ToolCallRecord, options: TimelineOptions): string[] {
  let shown = `${call.name}(${formatArguments(call.args, options)})`;
  if (call.origin === "formal") shown += ` [formal${call.callId ? ` ${call.callId}` : ""}]`;
  if (call.durationMs >= 100) shown += ` (${(call.durationMs / 1000).toFixed(1)} s)`;
  if (call.error !== undefined) return prefixLines(`${shown} threw ${call.error}`.split("\n"), "  ✗ ", "    ");
  if (!call.result) return [`  → ${shown}`];
  const result = truncateBlock(call.result, limitsFor(options, RESULT_LIMITS));
  return prefixLines([`${shown} = ${result[0]}`, ...result.slice(1)], "  → ", "    ");
}

/** A formal tool call as the model asked for it (its `tool-call` record follows, with the outcome). */
export function formatRequestedCall(call: RecordedToolCall, options: TimelineOptions): string {
  return `  ⇢ ${call.name}(${formatArguments(llmRepr(call.args, { maxDepth: 2, maxItems: 10 }), options)}) [${call.id}]`;
}

/** Arguments as recorded (`{a:1}`, or `[1,2]` for positional ones that could not be bound) on one line. */
function formatArguments(args: string, options: TimelineOptions): string {
  const inner = args.startsWith("[") && args.endsWith("]") ? args.slice(1, -1) : args;
  return options.full ? inner : truncateLine(inner, ARGUMENTS_MAX_CHARS);
}
