/**
 * @module
 * A cell's type errors as the model reads them, like a compiler's, at the cell's own lines:
 * `TypeError: line 3: Argument of type 'string' is not assignable to parameter of type 'Date'. (TS2345)`.
 */
import type { CellTypeError } from "./type-check-result.ts";

/** Errors shown at most; the rest are counted. */
const MAX_SHOWN = 10;
/** Characters of one message shown at most (a message about a large type can run to pages). */
const MAX_MESSAGE = 800;

/** The errors, one `TypeError: line N: …` per error (an elaboration indented below it). */
export function formatTypeErrors(errors: readonly CellTypeError[]): string {
  const lines = errors.slice(0, MAX_SHOWN).map((error) => {
    const message = error.message.length > MAX_MESSAGE ? `${error.message.slice(0, MAX_MESSAGE)}…` : error.message;
    const [first = "", ...more] = message.split("\n");
    return [`TypeError: line ${error.line}: ${first} (TS${error.code})`, ...more.map((line) => `  ${line.trim()}`)].join("\n");
  });
  const hidden = errors.length - MAX_SHOWN;
  if (hidden > 0) lines.push(`… and ${hidden} more type error${hidden === 1 ? "" : "s"}`);
  return lines.join("\n");
}
