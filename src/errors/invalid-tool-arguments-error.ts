import { StatekError } from "./statek-error.ts";

/** Longest stretch of the raw arguments quoted in the message; the full text stays in {@link InvalidToolArgumentsError.rawArguments}. */
const QUOTE_LIMIT = 500;

/**
 * A model called a tool with arguments that are not a JSON object (malformed JSON, or JSON of another type).
 * The message names the tool and quotes the raw text. STATEK does not throw it at a job: the reply is kept,
 * the call is not run, and `<name>: <message>` is the call's result, so the model is shown its mistake.
 *
 * @example
 * ```ts
 * const reply = await generateReply(model, request);
 * for (const call of reply.toolCalls) if (call.invalidArguments) console.log(call.invalidArguments.error);
 * // InvalidToolArgumentsError: the model called tool "add" with arguments that are not a JSON object (…): {"a": 2,
 * ```
 */
export class InvalidToolArgumentsError extends StatekError {
  /** The tool the model tried to call. */
  readonly toolName: string;
  /** The provider's id for the call. */
  readonly toolCallId: string;
  /** The arguments exactly as the model produced them. */
  readonly rawArguments: string;

  constructor({ toolName, toolCallId, rawArguments, cause }: {
    toolName: string;
    toolCallId: string;
    rawArguments: string;
    cause?: unknown;
  }) {
    const quoted = rawArguments.length > QUOTE_LIMIT ? `${rawArguments.slice(0, QUOTE_LIMIT)}…` : rawArguments;
    const detail = cause instanceof Error ? ` (${cause.message})` : "";
    super({
      name: "InvalidToolArgumentsError",
      message: `the model called tool "${toolName}" with arguments that are not a JSON object${detail}: ${quoted}`,
      cause,
    });
    this.toolName = toolName;
    this.toolCallId = toolCallId;
    this.rawArguments = rawArguments;
  }
}
