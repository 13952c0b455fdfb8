import { StatekError } from "./statek-error.ts";

/**
 * A model's streamed reply ended before the provider finished it: the connection closed without a finish
 * event, or the provider said it was interrupted. The reply may be missing its end, so it is never used; the
 * call is retried (`isRetryable` is true) and the attempt is kept in history as a `model-attempt` record.
 *
 * @example
 * ```ts
 * // model call failed after 3 attempts: IncompleteReplyError: the reply stream ended before the reply was finished (finish reason: interrupted)
 * ```
 */
export class IncompleteReplyError extends StatekError {
  /** The finish reason the stream gave, or `undefined` when it ended without one. */
  readonly finishReason: string | undefined;

  constructor({ finishReason }: { finishReason?: string | undefined }) {
    super({
      name: "IncompleteReplyError",
      message: finishReason === undefined
        ? "the reply stream ended without a finish event"
        : `the reply stream ended before the reply was finished (finish reason: ${finishReason})`,
      isRetryable: true,
    });
    this.finishReason = finishReason;
  }
}
