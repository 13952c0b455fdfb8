import { StatekError } from "./statek-error.ts";

/** No job with the given id exists in the store. */
export class NoSuchJobError extends StatekError {
  readonly jobId: string;

  constructor({ jobId }: { jobId: string }) {
    super({ name: "NoSuchJobError", message: `no job with id ${jobId}` });
    this.jobId = jobId;
  }
}
