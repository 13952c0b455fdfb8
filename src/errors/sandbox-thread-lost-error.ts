import { StatekError } from "./statek-error.ts";

/**
 * A sandbox thread stopped (it failed, exited, was closed, or overran a cell's time) and took its VMs with it.
 * Retryable: a VM made again on another thread can run the work, and the workspace replays from its journal.
 */
export class SandboxThreadLostError extends StatekError {
  /** True for the command whose overrun stopped the thread; false for the other VMs it took down. */
  readonly overran: boolean;

  constructor({ message, overran = false, cause }: { message: string; overran?: boolean; cause?: unknown }) {
    super({ name: "SandboxThreadLostError", message, cause, isRetryable: true });
    this.overran = overran;
  }
}
