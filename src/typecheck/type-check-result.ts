/**
 * @module
 * What a type check of a cell is given and what it found, as the checker's thread, the job runner and the
 * operator surfaces read them.
 */
import type { TypedVariable } from "./workspace-declarations.ts";


/** One type error in a cell, at its own line and column (1-based). */
export interface CellTypeError {
  readonly line: number;
  readonly column: number;
  /** The compiler's error code (2345 for TS2345). */
  readonly code: number;
  /** The compiler's message; an elaboration follows on further lines. */
  readonly message: string;
}

/** What one check is given. */
export interface CellCheckInput {
  /** The job's declarations: its tools, context values and their classes, as the model was shown them. */
  readonly declarations: string;
  /** The TypeScript source of the cells that ran before, earliest first. */
  readonly cells: readonly string[];
  /** The stored workspace variables, in definition order. */
  readonly variables: readonly TypedVariable[];
  /** The cell to check. */
  readonly cell: string;
}

/** What one check found. */
export interface CellCheckOutput {
  /** The cell's type errors (empty: it type-checks). */
  readonly errors: readonly CellTypeError[];
  /** Set when the cell does not parse: the cell compiler reports its syntax error when it runs. */
  readonly syntax?: true;
  /** Set when the cell could not be checked, and why (declarations that do not parse): it runs unchecked. */
  readonly unchecked?: string;
}
