import { StatekError } from "./statek-error.ts";

/**
 * A job ended `FAILED` for a reason that is not itself an error object (a harness limit, a missing model).
 * Error handlers receive it as their `error` when the failure has no other error to give.
 */
export class JobFailedError extends StatekError {
  readonly jobId: string;
  /** The readable reason, as in the job view's `error`. */
  readonly reason: string;

  constructor(options: { jobId: string; reason: string; cause?: unknown }) {
    super({ name: "JobFailedError", message: options.reason, cause: options.cause });
    this.jobId = options.jobId;
    this.reason = options.reason;
  }
}
