import { StatekError } from "./statek-error.ts";

/**
 * A job was cancelled (`statek.cancelJob`, or its parent was). Its error handlers receive this as their `error`.
 *
 * @example
 * ```ts
 * // JobCancelledError: job 9aaf… was cancelled: the customer withdrew the request
 * ```
 */
export class JobCancelledError extends StatekError {
  readonly jobId: string;
  /** The reason given, as in the job view's `error`. */
  readonly reason: string;

  constructor(options: { jobId: string; reason: string }) {
    super({ name: "JobCancelledError", message: `job ${options.jobId} was cancelled: ${options.reason}` });
    this.jobId = options.jobId;
    this.reason = options.reason;
  }
}
