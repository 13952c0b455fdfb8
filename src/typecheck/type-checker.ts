/**
 * @module
 * The cell type checker of one `Statek` instance: it prepares each check on the scheduling thread from what only
 * that thread has (live tools, classes, bindings, stored variables; `check-inputs.ts`) and sends it to a checker
 * thread — the process's shared one unless it is given its own.
 */
import { CheckInputs, type CellCheckJob } from "./check-inputs.ts";
import { CheckerThread, sharedCheckerThread, type CheckVerdict } from "./checker-thread.ts";

export type { CheckVerdict } from "./checker-thread.ts";

/** Type-checks cells for the jobs of one `Statek` instance. */
export class TypeChecker {
  readonly #thread: CheckerThread;
  readonly #inputs = new CheckInputs();

  /** @param thread the thread checks run on. @default the process's shared thread */
  constructor(thread: CheckerThread = sharedCheckerThread()) {
    this.#thread = thread;
  }

  /** The thread checks run on. */
  get thread(): CheckerThread {
    return this.#thread;
  }

  /**
   * Type-checks a cell of a job against its declarations, its stored variables and its earlier cells. Never
   * rejects: what prevented a check is an `unchecked` verdict.
   */
  checkCell(job: CellCheckJob): Promise<CheckVerdict> {
    let input;
    try {
      input = this.#inputs.prepare(job);
    } catch (error) {
      // A host object that cannot be read (a proxy that throws, a getter among a class's statics) is the application's.
      return Promise.resolve({ kind: "unchecked", reason: `the job's declarations could not be made: ${error instanceof Error ? error.message : String(error)}` });
    }
    return this.#thread.check(input);
  }
}
