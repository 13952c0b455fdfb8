/**
 * @module
 * Indents blocks of text under a marker, as the timeline prints them.
 */

/** Prefixes the first line with `first` and the others with `rest` (spaces of the same width by default). */
export function prefixLines(lines: readonly string[], first: string, rest = " ".repeat(first.length)): string[] {
  return lines.map((line, index) => (index === 0 ? first : rest) + line);
}
