/**
 * @module
 * Shortens long output for reading. Only output is shortened, always with a visible marker; errors are
 * never passed through here.
 */

/** One line of at most `maxChars` characters: newlines become `⏎`, the cut end becomes `…`. */
export function truncateLine(text: string, maxChars: number): string {
  const line = text.replace(/\r?\n/g, " ⏎ ");
  return line.length <= maxChars ? line : line.slice(0, Math.max(maxChars - 1, 0)) + "…";
}

/** Limits of {@link truncateBlock}. */
export interface BlockLimits {
  maxLines: number;
  maxChars: number;
}

/** The lines of `text`, cut to the limits, with a last line saying how much was left out (`null`: no limits). */
export function truncateBlock(text: string, limits: BlockLimits | null): string[] {
  const lines = text.split(/\r?\n/);
  if (!limits) return lines;
  const kept: string[] = [];
  let shown = 0;
  for (const line of lines) {
    if (kept.length === limits.maxLines || shown >= limits.maxChars) break;
    const room = limits.maxChars - shown;
    kept.push(line.length > room ? line.slice(0, room) + "…" : line);
    shown += Math.min(line.length, room) + 1;
  }
  const hiddenLines = lines.length - kept.length;
  const hiddenChars = text.length + 1 - shown;
  if (hiddenLines > 0) kept.push(`… ${plural(hiddenLines, "more line")} (--full shows all)`);
  else if (hiddenChars > 0) kept.push(`… ${plural(hiddenChars, "more character")} (--full shows all)`);
  return kept;
}

function plural(count: number, noun: string): string {
  return `${count.toLocaleString("en-US")} ${noun}${count === 1 ? "" : "s"}`;
}
