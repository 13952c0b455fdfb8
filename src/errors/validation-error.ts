import { StatekError } from "./statek-error.ts";

/**
 * Arguments of a tool call did not pass the tool's schema. Agent code can catch it; the model reads it as
 * `ValidationError: findEmptySlot(after): expected a date, got "tomorrow"`.
 */
export class ValidationError extends StatekError {
  readonly toolName: string;
  /** The parameter at fault, or `undefined` for a problem with the call as a whole. */
  readonly parameter: string | undefined;
  /** What the schema expected, in words (`a date`). */
  readonly expected: string;
  /** The offending value, formatted for the model. */
  readonly received: string | undefined;

  constructor(options: { toolName: string; parameter?: string; expected: string; received?: string }) {
    const where = options.parameter ? `${options.toolName}(${options.parameter})` : options.toolName;
    const got = options.received === undefined ? "" : `, got ${options.received}`;
    super({ name: "ValidationError", message: `${where}: ${options.expected}${got}` });
    this.toolName = options.toolName;
    this.parameter = options.parameter;
    this.expected = options.expected;
    this.received = options.received;
  }
}
