import { StatekError } from "./statek-error.ts";

/**
 * A message was pushed into a job that has finished for good: a `FAILED` or `CANCELLED` job, or a `DONE` job of
 * a chat style that is not a dialog (only `MD_DIALOG` and `DIRECT` jobs start again on a user message).
 *
 * @example
 * ```ts
 * await statek.pushMessage(doneMarkdownJobId, "one more thing");
 * // JobFinishedError: job 9aaf… is DONE; only dialog jobs (CHAT_STYLE MD_DIALOG or DIRECT) take messages after they finish
 * ```
 */
export class JobFinishedError extends StatekError {
  readonly jobId: string;
  readonly status: string;

  constructor({ jobId, status }: { jobId: string; status: string }) {
    super({
      name: "JobFinishedError",
      message: status === "FAILED" || status === "CANCELLED"
        ? `job ${jobId} is ${status}; a ${status.toLowerCase()} job takes no more messages${status === "FAILED" ? " (retry it first)" : ""}`
        : `job ${jobId} is ${status}; only dialog jobs (CHAT_STYLE MD_DIALOG or DIRECT) take messages after they finish`,
    });
    this.jobId = jobId;
    this.status = status;
  }
}
