import { StatekError } from "./statek-error.ts";

/** Why a {@link NameError} was raised. */
export type NameProblem = "tool-not-found" | "tool-not-exposed" | "not-defined";

const MESSAGES: Record<NameProblem, (name: string) => string> = {
  "tool-not-found": (name) => `tool '${name}' not found`,
  "tool-not-exposed": (name) => `tool '${name}' is not exposed to this job`,
  "not-defined": (name) => `name '${name}' is not defined`,
};

/**
 * A name the model used does not stand for anything it may use: an unknown tool in a formal call
 * (`NameError: tool 'x' not found`), a hidden or not-allowed tool (`NameError: tool 'x' is not exposed to
 * this job`), or an undefined name given to `brief`/`docstr` (`NameError: name 'x' is not defined`).
 */
export class NameError extends StatekError {
  /** The name as the model wrote it. */
  readonly identifier: string;
  readonly problem: NameProblem;

  constructor(options: { identifier: string; problem: NameProblem }) {
    super({ name: "NameError", message: MESSAGES[options.problem](options.identifier) });
    this.identifier = options.identifier;
    this.problem = options.problem;
  }
}
