/**
 * @module
 * The compiler options a cell is checked with, chosen so that code that runs is not refused (see
 * docs/decisions/2026-12-04-typed-cells.md for the figures): calls, members, arguments and assignments are
 * checked against the declarations; JavaScript idioms that run correctly — parameters without types, `catch (e)`
 * used as an error, values that may be `null` — are not errors.
 */
import ts from "typescript";

/** Options of every cell's program. */
export const CELL_COMPILER_OPTIONS: ts.CompilerOptions = Object.freeze({
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  lib: ["lib.esnext.d.ts"],
  types: [],
  noEmit: true,
  noResolve: true,
  // A cell written in JavaScript is checked as JavaScript (see cell-language.ts).
  allowJs: true,
  checkJs: true,
  skipLibCheck: true,
  skipDefaultLibCheck: true,
  // A cell is agent code written quickly, as in a REPL: untyped parameters, `catch (e) { e.message }`, a value
  // looked up in a map and used, are what the model writes and what runs.
  strict: false,
  noImplicitAny: false,
  strictNullChecks: false,
  useUnknownInCatchVariables: false,
  strictPropertyInitialization: false,
  noImplicitThis: false,
  // What stays checked beyond the basics: callbacks' parameter types, and `bind`/`call`/`apply`.
  strictFunctionTypes: true,
  strictBindCallApply: true,
  // Code after `exit()` or a `return` is not an error; neither are unused labels.
  allowUnreachableCode: true,
  allowUnusedLabels: true,
});
