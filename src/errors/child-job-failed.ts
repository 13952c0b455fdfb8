import { StatekError } from "./statek-error.ts";

/**
 * A child job started with `ctx.startJob` ended `FAILED` or `CANCELLED`: awaiting its handle throws this in
 * the parent's agent code (`ChildJobFailed: child job … failed: …`), catchable by name.
 */
export class ChildJobFailed extends StatekError {
  readonly childId: string;
  /** `FAILED` or `CANCELLED`. */
  readonly status: string;
  /** The child's failure reason (or the cancellation's). */
  readonly reason: string;

  constructor({ childId, role, status, reason }: { childId: string; role: string; status: string; reason: string }) {
    const verb = status === "CANCELLED" ? "was cancelled" : "failed";
    super({ name: "ChildJobFailed", message: `child job ${childId} (${role}) ${verb}${reason ? `: ${reason}` : ""}` });
    this.childId = childId;
    this.status = status;
    this.reason = reason;
  }
}
