import { StatekError } from "./statek-error.ts";

/**
 * A `MODEL` string's provider needs an API key and the environment variable that holds it is not set.
 *
 * @example
 * ```ts
 * await resolveModel("openai/gpt-5-mini"); // LoadApiKeyError: MODEL 'openai/gpt-5-mini' needs an API key: set OPENAI_API_KEY
 * ```
 */
export class LoadApiKeyError extends StatekError {
  readonly model: string;
  /** The environment variable to set. */
  readonly variable: string;

  constructor({ model, variable }: { model: string; variable: string }) {
    super({ name: "LoadApiKeyError", message: `MODEL '${model}' needs an API key: set ${variable}` });
    this.model = model;
    this.variable = variable;
  }
}
