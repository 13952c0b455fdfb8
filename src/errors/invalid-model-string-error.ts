import { StatekError } from "./statek-error.ts";

/**
 * A `MODEL` string is not of the form `provider/model` (for example `openai/gpt-5-mini`).
 *
 * @example
 * ```ts
 * await resolveModel("gpt-5-mini"); // InvalidModelStringError: MODEL 'gpt-5-mini' names no provider; write it as 'openai/gpt-5-mini'
 * ```
 */
export class InvalidModelStringError extends StatekError {
  /** The string as given. */
  readonly model: string;
  /** What is wrong with it. */
  readonly reason: string;

  constructor({ model, reason }: { model: string; reason: string }) {
    super({ name: "InvalidModelStringError", message: `MODEL ${JSON.stringify(model)} ${reason}` });
    this.model = model;
    this.reason = reason;
  }
}
