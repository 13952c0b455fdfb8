import { StatekError } from "./statek-error.ts";

/**
 * A job cannot be forked at the turn asked for: the job has not reached it, or the turn has not ended (its
 * response is still being executed, or its warmup still runs). Names the job, the turn and why.
 *
 * @example
 * ```ts
 * await statek.forkJob(id, { atTurn: 7 });
 * // ForkTurnError: forkJob: job 9aaf… has 3 turns; there is no turn 7 to fork from
 * ```
 */
export class ForkTurnError extends StatekError {
  readonly jobId: string;
  readonly turn: number;

  constructor(options: { jobId: string; turn: number; reason: string }) {
    super({ name: "ForkTurnError", message: `forkJob: job ${options.jobId} ${options.reason}` });
    this.jobId = options.jobId;
    this.turn = options.turn;
  }
}
