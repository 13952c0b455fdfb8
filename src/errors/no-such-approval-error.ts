import { StatekError } from "./statek-error.ts";

/** `statek.approve`/`deny` named an approval request that job does not have. */
export class NoSuchApprovalError extends StatekError {
  readonly jobId: string;
  readonly requestId: string;

  constructor({ jobId, requestId, why }: { jobId: string; requestId: string; why?: string }) {
    super({ name: "NoSuchApprovalError", message: `job ${jobId} has no approval request ${JSON.stringify(requestId)}${why ? ` (${why})` : ""}` });
    this.jobId = jobId;
    this.requestId = requestId;
  }
}
