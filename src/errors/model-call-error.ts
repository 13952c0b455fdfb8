import { StatekError } from "./statek-error.ts";

/**
 * A model call failed for good: a non-retryable error, or a retryable one (429, 5xx, timeout) that persisted
 * through every retry. The message says how many attempts were made and what the last one got.
 *
 * @example
 * ```ts
 * // a job's error after three 503 answers:
 * // model call failed after 3 attempts: AI_APICallError: Service Unavailable
 * ```
 */
export class ModelCallError extends StatekError {
  /** How many times the call was made. */
  readonly attempts: number;
  /** `<ErrorName>: <message>` of the last attempt's error. */
  readonly lastError: string;

  constructor({ attempts, lastError, cause, note }: { attempts: number; lastError: string; cause?: unknown; note?: string }) {
    const after = attempts > 1 ? ` after ${attempts} attempts` : "";
    super({
      name: "ModelCallError",
      message: `model call failed${after}: ${lastError}${note ? ` (${note})` : ""}`,
      cause,
    });
    this.attempts = attempts;
    this.lastError = lastError;
  }
}
