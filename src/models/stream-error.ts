/**
 * @module
 * What an `error` part of a model stream carries, as an error the retry policy can read. Provider packages put
 * different things there: an `APICallError` (kept as it is), the AI SDK's normalised provider stream error (a
 * plain object with `message` and `isRetryable`), or the raw error object of the wire format
 * (`{ message, code: 429 }` from an OpenAI-compatible server such as OpenRouter).
 */
import { ModelProviderError } from "../errors/model-provider-error.ts";

/**
 * The error to throw for an `error` stream part.
 *
 * @example
 * ```ts
 * streamPartError({ message: "Rate limit exceeded", code: 429 }); // ModelProviderError, isRetryable: true
 * ```
 */
export function streamPartError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error !== "object" || error === null) {
    return new ModelProviderError({ message: typeof error === "string" && error ? error : "the provider reported an unspecified error", data: error });
  }
  const fields = error as Record<string, unknown>;
  // `{ error: { … } }` wrapped once more by some servers.
  const inner = typeof fields.error === "object" && fields.error !== null ? fields.error as Record<string, unknown> : fields;
  const message = typeof inner.message === "string" && inner.message ? inner.message : `the provider reported an error: ${safeJson(error)}`;
  return new ModelProviderError({
    message,
    code: typeof inner.code === "string" || typeof inner.code === "number" ? inner.code : undefined,
    statusCode: typeof inner.statusCode === "number" ? inner.statusCode : typeof inner.status === "number" ? inner.status : undefined,
    type: typeof inner.type === "string" ? inner.type : undefined,
    isRetryable: typeof fields.isRetryable === "boolean" ? fields.isRetryable : undefined,
    data: "data" in fields ? fields.data : error,
  });
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
