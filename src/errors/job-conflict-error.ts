import { StatekError } from "./statek-error.ts";

/** A commit named a job version that is no longer current: another step or process changed the job first. */
export class JobConflictError extends StatekError {
  readonly jobId: string;
  readonly expectedVersion: number;
  readonly actualVersion: number;

  constructor({ jobId, expectedVersion, actualVersion }: { jobId: string; expectedVersion: number; actualVersion: number }) {
    super({
      name: "JobConflictError",
      message: `job ${jobId} was changed by another step or process (expected version ${expectedVersion}, found ${actualVersion})`,
      isRetryable: true,
    });
    this.jobId = jobId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}
