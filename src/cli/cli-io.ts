/**
 * @module
 * Where the CLI writes. `main` takes the streams as an argument so tests and embedders capture output
 * without patching `process`.
 */

/** A stream the CLI writes text to. */
export interface CliOutput {
  write(text: string): unknown;
  /** True for a terminal: long-running commands then redraw a status line instead of printing log lines. */
  isTTY?: boolean;
}

/** The CLI's output streams. */
export interface CliIo {
  /** Results: tables, timelines, JSON, help asked for. */
  stdout: CliOutput;
  /** Diagnostics: usage errors, missing stores and jobs. */
  stderr: CliOutput;
}

/** The process's own streams. */
export const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr };
