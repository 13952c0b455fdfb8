import { StatekError } from "./statek-error.ts";


/** Exit codes: `1` when the command could not do its work, `2` when it was called wrongly. */
export type CliExitCode = 1 | 2;

/** What {@link CliError} is built from. */
export interface CliErrorOptions {
  /** What went wrong, for the operator (printed after `statek: `). */
  message: string;
  /** `2` for a usage error (a usage hint follows the message), `1` otherwise. @default 1 */
  exitCode?: CliExitCode;
  /** The command whose usage the hint points to, for usage errors. */
  command?: string;
  cause?: unknown;
}

/**
 * A failure the `statek` command reports as a message and an exit code, without a stack trace. It carries the
 * exit code, so commands say what went wrong and `main` decides nothing from the message.
 */
export class CliError extends StatekError {
  readonly exitCode: CliExitCode;
  readonly command: string | undefined;

  constructor({ message, exitCode = 1, command, cause }: CliErrorOptions) {
    super({ name: "CliError", message, cause });
    this.exitCode = exitCode;
    this.command = command;
  }
}
