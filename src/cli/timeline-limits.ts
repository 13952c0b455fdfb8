/**
 * @module
 * How much of each kind of output the timeline shows before cutting it (`statek show --full` shows all).
 */
import type { BlockLimits } from "./truncate-text.ts";

/** What the timeline formatters are told. */
export interface TimelineOptions {
  /** Show every output in full. */
  full: boolean;
}

/** Console output and user messages. */
export const OUTPUT_LIMITS: BlockLimits = { maxLines: 20, maxChars: 2000 };

/** Tool results, exit values, reasoning. */
export const RESULT_LIMITS: BlockLimits = { maxLines: 8, maxChars: 600 };

/** Console entries shown per model turn; errors and notices are not counted and always show. */
export const CONSOLE_ENTRIES_PER_TURN = 40;

/** Tool arguments, shown on one line. */
export const ARGUMENTS_MAX_CHARS = 200;

/** `limits`, or `null` (no limit) under `--full`. */
export function limitsFor(options: TimelineOptions, limits: BlockLimits): BlockLimits | null {
  return options.full ? null : limits;
}
