import { StatekError } from "./statek-error.ts";

/**
 * An `LLM_TOOLS_SCOPE` setting that cannot be used: bad syntax (`SYSTEM+`, `TOOLS`), a tool it names that
 * the agent does not have (or that is hidden), a tool not meant for the job's chat style, or a removal of a
 * tool that is not selected. The message quotes the setting and says what is wrong.
 */
export class InvalidToolsScopeError extends StatekError {
  /** The setting as written. */
  readonly scope: string;
  /** What is wrong with it. */
  readonly reason: string;

  constructor(options: { scope: string; reason: string }) {
    super({ name: "InvalidToolsScopeError", message: `LLM_TOOLS_SCOPE ${JSON.stringify(options.scope)}: ${options.reason}` });
    this.scope = options.scope;
    this.reason = options.reason;
  }
}
