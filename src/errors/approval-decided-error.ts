import { StatekError } from "./statek-error.ts";

/**
 * `statek.approve`/`deny` came after the request was decided: the first decision wins, and this error names it
 * (who, when, which way), so a second approver learns what happened instead of silently changing nothing.
 */
export class ApprovalDecidedError extends StatekError {
  readonly jobId: string;
  readonly requestId: string;
  /** The first decision: approved or not, by whom, when (epoch ms). */
  readonly decision: { approved: boolean; by: string; decidedAt: number | undefined; note: string | undefined };

  constructor({ jobId, requestId, decision }: { jobId: string; requestId: string; decision: ApprovalDecidedError["decision"] }) {
    const when = decision.decidedAt === undefined ? "" : ` at ${new Date(decision.decidedAt).toISOString()}`;
    super({
      name: "ApprovalDecidedError",
      message: `approval request ${JSON.stringify(requestId)} of job ${jobId} was already ${decision.approved ? "approved" : "denied"} by ${decision.by}${when}; the first decision stands`,
    });
    this.jobId = jobId;
    this.requestId = requestId;
    this.decision = decision;
  }
}
