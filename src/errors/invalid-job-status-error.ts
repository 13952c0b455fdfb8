import { StatekError } from "./statek-error.ts";

/**
 * An operation on a job that its status does not allow: cancelling a job that has finished, retrying one that
 * has not failed. Names the job, its status and what the operation needs.
 *
 * @example
 * ```ts
 * await statek.retryJob(doneId);
 * // InvalidJobStatusError: retryJob: job 9aaf… is DONE; only a FAILED job can be retried
 * ```
 */
export class InvalidJobStatusError extends StatekError {
  readonly jobId: string;
  readonly status: string;
  /** The operation refused (`cancelJob`, `retryJob`). */
  readonly operation: string;

  constructor(options: { jobId: string; status: string; operation: string; expected: string }) {
    super({ name: "InvalidJobStatusError", message: `${options.operation}: job ${options.jobId} is ${options.status}; ${options.expected}` });
    this.jobId = options.jobId;
    this.status = options.status;
    this.operation = options.operation;
  }
}
