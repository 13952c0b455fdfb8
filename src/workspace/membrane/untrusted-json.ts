/**
 * @module
 * Parsing JSON that came from the guest. Agent code can replace the guest's `JSON.stringify` and the
 * `toJSON` of built-in prototypes, so any text it sends may be crafted. Well-formed but deeply nested JSON
 * costs the host's parser about half a microsecond per level — a text of a few megabytes would stall the
 * worker for seconds — so long texts are checked for depth (a linear scan that skips string contents) before
 * they are parsed. Texts the workspace produces itself never nest deeper than a handful of levels.
 */

/** Deepest nesting a guest text may have. */
export const MAX_UNTRUSTED_DEPTH = 32;
/** Texts shorter than this cannot nest deep enough to matter and are parsed at once. */
const SCAN_FROM = 2048;

/** `JSON.parse` for a guest text; throws a `TypeError` for one nested deeper than {@link MAX_UNTRUSTED_DEPTH}. */
export function parseUntrusted(text: string): unknown {
  if (text.length >= SCAN_FROM && !nestsWithin(text, MAX_UNTRUSTED_DEPTH)) {
    throw new TypeError(`the data sent from the workspace is nested deeper than ${MAX_UNTRUSTED_DEPTH} levels`);
  }
  return JSON.parse(text);
}

/** True when no array or object in `text` is nested deeper than `maxDepth` (strings are skipped). */
export function nestsWithin(text: string, maxDepth: number): boolean {
  // No more opening brackets than the limit, strings included, cannot nest deeper than it: most texts (a list
  // of numbers has two) are counted by the engine's own search instead of scanned character by character.
  let brackets = 0;
  for (const open of ["[", "{"]) {
    for (let i = text.indexOf(open); i >= 0 && brackets <= maxDepth; i = text.indexOf(open, i + 1)) brackets++;
  }
  if (brackets <= maxDepth) return true;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \ */) i++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > maxDepth) return false;
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
  }
  return true;
}
