/**
 * @module
 * A request the UI refuses because of what it asked (a bad filter, a missing field, a future that is not
 * waiting): shown to the operator as it is, with the HTTP status that says why.
 */
import { StatekError } from "../errors/statek-error.ts";

/** A refused request: `status` 400 (malformed), 404 (no such thing), 409 (not possible now), 501 (not in this STATEK). */
export class UiInputError extends StatekError {
  readonly status: 400 | 404 | 409 | 501;

  constructor(options: { message: string; status?: 400 | 404 | 409 | 501 }) {
    super({ name: "UiInputError", message: options.message });
    this.status = options.status ?? 400;
  }
}
