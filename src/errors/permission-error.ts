import { StatekError } from "./statek-error.ts";

/** What a {@link PermissionError} refused. */
export type PermissionProblem = "read-only-memory" | "read-only-job";

/**
 * Agent code tried to change shared memory it may only read: assigning a name that stands for a memory value
 * (`PermissionError: 'tone' is shared memory and read-only here; use remember(…)`), or calling `remember` in a
 * job bound with `memoryAccess: "read"`.
 */
export class PermissionError extends StatekError {
  /** The memory key concerned. */
  readonly key: string;
  readonly problem: PermissionProblem;

  constructor(options: { key: string; problem: PermissionProblem }) {
    super({
      name: "PermissionError",
      message: options.problem === "read-only-memory"
        ? `'${options.key}' is shared memory and read-only here; use remember(…)`
        : `this job reads shared memory only (memoryAccess: "read"); it cannot remember '${options.key}'`,
    });
    this.key = options.key;
    this.problem = options.problem;
  }
}
