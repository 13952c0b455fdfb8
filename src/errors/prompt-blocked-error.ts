import { StatekError } from "./statek-error.ts";

/**
 * The provider refused the prompt itself (Gemini's `promptFeedback.blockReason`), before the model wrote
 * anything. Asking again with the same prompt gets the same answer, so the call is not retried and the turn
 * fails with the provider's reason.
 *
 * @example
 * ```ts
 * // a job's error:
 * // model call failed: PromptBlockedError: the provider blocked the prompt (blockReason PROHIBITED_CONTENT) (google/gemini-2.5-flash)
 * ```
 */
export class PromptBlockedError extends StatekError {
  /** The provider's reason, as it gave it (`SAFETY`, `PROHIBITED_CONTENT`, `OTHER`, …). */
  readonly blockReason: string;

  constructor({ blockReason }: { blockReason: string }) {
    super({ name: "PromptBlockedError", message: `the provider blocked the prompt (blockReason ${blockReason})` });
    this.blockReason = blockReason;
  }
}
