import { StatekError } from "./statek-error.ts";

/** An operation needs a job that still waits (an approval of a job that has finished or been cancelled). */
export class JobNotWaitingError extends StatekError {
  readonly jobId: string;
  readonly status: string;

  constructor({ jobId, status, what }: { jobId: string; status: string; what: string }) {
    super({ name: "JobNotWaitingError", message: `job ${jobId} is ${status}: it no longer waits for ${what}` });
    this.jobId = jobId;
    this.status = status;
  }
}
