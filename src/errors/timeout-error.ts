import { StatekError } from "./statek-error.ts";

/** What ran out of time. */
export type TimeoutCause =
  /** A cell used up its CPU time limit (`cellTimeMs`) and was stopped. */
  | { kind: "cell"; limitMs: number }
  /** A cell ran past its wall-clock limit (`cellWallTimeMs`), host calls, timers and promises counted, and was stopped. */
  | { kind: "cell-wall"; limitMs: number }
  /** The engine interrupted a cell (its limit, or the host stopping it). */
  | { kind: "cell-stopped" }
  /** Reading the workspace's variables outlasted the runtime's own limit. */
  | { kind: "read" }
  /** A runtime entry (not agent code) outlasted its limit. */
  | { kind: "entry" }
  /** A nested runtime entry (a read while the guest waits in a host call) did not answer within `waitMs`. */
  | { kind: "nested"; waitMs: number }
  /** A nested runtime entry ran past the deadline the host gave it and was stopped inside the guest. */
  | { kind: "nested-deadline" }
  /** A nested runtime entry was refused: an earlier one of the same thread had not answered yet. */
  | { kind: "nested-busy" }
  /** A future was not settled within its `timeoutMs`. */
  | { kind: "future"; key: string; timeoutMs: number }
  /** The sandbox thread was stopped under the cell; `reason` says why. */
  | { kind: "thread"; reason: string };

const limitText = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

function messageOf(cause: TimeoutCause): string {
  switch (cause.kind) {
    case "cell": return `the cell used more than its ${limitText(cause.limitMs)} CPU time limit and was stopped`;
    case "cell-wall":
      return `the cell ran for more than its ${limitText(cause.limitMs)} wall-clock limit (cellWallTimeMs), counting the time its host calls, timers and promises took, and was stopped`;
    case "cell-stopped": return "the cell was stopped";
    case "read": return "reading the workspace took longer than its time limit";
    case "entry": return "the runtime's entry took longer than its time limit";
    case "nested": return `the runtime entry did not answer within ${cause.waitMs} ms`;
    case "nested-deadline": return "the runtime entry ran past the time the host waits for it";
    case "nested-busy": return "an earlier read of the workspace is still running";
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
