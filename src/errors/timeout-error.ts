import { StatekError } from "./statek-error.ts";

/** What ran out of time. */
export type TimeoutCause =
  /** A cell used up its CPU time limit (`cellTimeMs`) and was stopped. */
  | { kind: "cell"; limitMs: number }
  /** The engine interrupted a cell (its limit, or the host stopping it). */
  | { kind: "cell-stopped" }
  /** Reading the workspace's variables outlasted the runtime's own limit. */
  | { kind: "read" }
  /** A runtime entry (not agent code) outlasted its limit. */
  | { kind: "entry" }
  /** A future was not settled within its `timeoutMs`. */
  | { kind: "future"; key: string; timeoutMs: number }
  /** The sandbox thread was stopped under the cell; `reason` says why. */
  | { kind: "thread"; reason: string };

function messageOf(cause: TimeoutCause): string {
  switch (cause.kind) {
    case "cell": {
      const limit = cause.limitMs >= 1000 ? `${cause.limitMs / 1000} s` : `${cause.limitMs} ms`;
      return `the cell used more than its ${limit} CPU time limit and was stopped`;
    }
    case "cell-stopped": return "the cell was stopped";
    case "read": return "reading the workspace took longer than its time limit";
    case "entry": return "the runtime's entry took longer than its time limit";
    case "future": return `the future ${cause.key} was not settled within ${cause.timeoutMs} ms`;
    case "thread": return cause.reason;
  }
}

/**
 * What agent code (and so the model) reads when something ran out of time: a cell's CPU limit, a future's
 * `timeoutMs`, the runtime's own limits. Every such text is written here.
 */
export class TimeoutError extends StatekError {
  readonly timeout: TimeoutCause;

  constructor(cause: TimeoutCause) {
    super({ name: "TimeoutError", message: messageOf(cause) });
    this.timeout = cause;
  }
}
