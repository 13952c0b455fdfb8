/**
 * @module
 * A console entry in the timeline. Output is quoted with `>`, standard error with `!`; uncaught errors are
 * marked `✗` and never cut.
 */
import type { ConsoleRecord } from "../jobs/history/history.ts";
import { prefixLines } from "./prefix-lines.ts";
import { OUTPUT_LIMITS, limitsFor, type TimelineOptions } from "./timeline-limits.ts";
import { truncateBlock } from "./truncate-text.ts";

/** The lines of one `console` record. */
export function formatConsoleEntry(entry: ConsoleRecord, options: TimelineOptions): string[] {
  const text = String(entry.text);
  switch (entry.stream) {
    case "error":
      return prefixLines(text.split("\n"), "  ✗ ", "    ");
    case "notice":
      return prefixLines(text.split("\n"), "  note: ");
    case "err":
      return prefixLines(truncateBlock(text, limitsFor(options, OUTPUT_LIMITS)), "  ! ", "  ! ");
    default:
      return prefixLines(truncateBlock(text, limitsFor(options, OUTPUT_LIMITS)), "  > ", "  > ");
  }
}
