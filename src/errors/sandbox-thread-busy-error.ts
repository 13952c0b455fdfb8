import { StatekError } from "./statek-error.ts";

/** A command that never started: its thread was running a long cell, so the command was taken back to run elsewhere. */
export class SandboxThreadBusyError extends StatekError {
  constructor() {
    super({ name: "SandboxThreadBusyError", message: "the sandbox thread is running a long cell; the work goes to another thread", isRetryable: true });
  }
}
