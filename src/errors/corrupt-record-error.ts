import { StatekError } from "./statek-error.ts";

/** A stored record could not be read back (bad JSON, unknown format). Fails that one job, never the store. */
export class CorruptRecordError extends StatekError {
  readonly jobId: string;
  /** Where the record lives, e.g. `jobs.params` or `history[12]`. */
  readonly location: string;

  constructor({ jobId, location, cause }: { jobId: string; location: string; cause?: unknown }) {
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    super({ name: "CorruptRecordError", message: `job ${jobId}: the stored ${location} cannot be read${detail}`, cause });
    this.jobId = jobId;
    this.location = location;
  }
}
