/**
 * @module
 * Which earlier cells can matter to a check. An earlier cell reaches a check only through the names it
 * declares at its top level (`cell-definitions.ts`: functions, classes, enums, namespaces, `let`/`const`/`var`/
 * `using` statements, type aliases and interfaces), and each of those needs one of a few keywords. A cell
 * without any of them — `1`, `print(x)`, `x.done = true` — declares nothing, so leaving it out of the check's
 * input changes no verdict; it makes the input of a job's next check the same as its last one whenever the
 * cells in between declared nothing, so the kept verdict answers it (`check-cache.ts`) and nothing is sent to the
 * checker's thread. The test is on words, so it errs only towards keeping a cell: a keyword in a string or a
 * comment keeps it, and so does any backslash (an escaped keyword such as `\u0063onst` still parses as one).
 */

/** A word any top-level declaration of a cell contains (see `cell-definitions.ts`). */
const DECLARING_WORD = /\b(?:function|class|enum|namespace|module|let|const|var|using|type|interface)\b/;

/** True when `source` may declare a name at its top level (false only when it certainly does not). */
export function mayDeclare(source: string): boolean {
  return source.includes("\\") || DECLARING_WORD.test(source);
}

/** The cells of `cells` that may declare something, in their order (the same array when all may). */
export function declaringCells(cells: readonly string[]): readonly string[] {
  const kept = cells.filter(mayDeclare);
  return kept.length === cells.length ? cells : kept;
}
