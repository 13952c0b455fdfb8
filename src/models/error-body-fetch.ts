/**
 * @module
 * A `fetch` for provider packages that turns an error sent with status 200 into an HTTP error. OpenRouter (and
 * other gateways that keep a connection alive with whitespace before they know the outcome) answer a failed
 * call with `200 OK` and a body such as `{ "error": { "code": 429, "message": "Rate limit exceeded" } }`; a
 * provider package then reports "Invalid JSON response" or an empty stream, and the provider's message and
 * the chance to retry are lost. Given the status the body names, the package reads the provider's message and
 * marks 408, 409, 429 and 5xx retryable. Event streams pass through untouched: errors inside them are `error`
 * parts the stream reader handles.
 */
import { ModelProviderError } from "../errors/model-provider-error.ts";

/**
 * Wraps `fetch` so that a `200` answer whose JSON body is an error object becomes an answer with the error's
 * status: its numeric `code` or `status` when that is an HTTP error status, else 503 for an error whose code or
 * type says it is transient (`rate_limit_exceeded`, `overloaded_error`) and 400 for any other.
 *
 * @example
 * ```ts
 * const provider = createOpenAICompatible({ name: "openrouter", baseURL, fetch: withErrorBodies(globalThis.fetch) });
 * ```
 */
export function withErrorBodies(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200 || type.includes("text/event-stream") || response.body === null) return response;
    const text = await response.text();
    const status = errorStatusOf(text);
    const headers = new Headers(response.headers);
    // The body was decoded once already; its length and encoding headers no longer describe `text`.
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(text, {
      status: status ?? response.status,
      statusText: status === undefined ? response.statusText : "Error in a 200 response",
      headers,
    });
  };
}

/** The HTTP status an error body stands for, or `undefined` when the body is not an error. */
function errorStatusOf(text: string): number | undefined {
  // Only bodies that could be a JSON object are parsed; keep-alive whitespace may come first.
  if (!/^\s*\{/.test(text)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { error } = body as Record<string, unknown>;
  if (typeof error !== "object" || error === null) return undefined;
  // A successful reply never carries an error object next to its content.
  const fields = body as Record<string, unknown>;
  if ("choices" in fields || "candidates" in fields || "content" in fields || "output" in fields) return undefined;
  const { code, status, type } = error as Record<string, unknown>;
  // The same reading of codes and types as errors reported inside a stream.
  const reading = new ModelProviderError({
    message: "",
    code: typeof code === "number" || typeof code === "string" ? code : undefined,
    statusCode: typeof status === "number" ? status : undefined,
    type: typeof type === "string" ? type : undefined,
  });
  const statusCode = reading.statusCode;
  if (statusCode !== undefined && statusCode >= 400 && statusCode <= 599) return statusCode;
  return reading.isRetryable ? 503 : 400;
}
