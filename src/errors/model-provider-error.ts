import { StatekError } from "./statek-error.ts";

/** HTTP statuses (and the same numbers used as error codes in a body) worth retrying: timeout, conflict, rate limit, server errors. */
const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599);

/** Error codes and types providers use for transient failures when they give no number. */
const RETRYABLE_NAMES = /rate.?limit|overload|server.?error|internal|unavailable|timeout|capacity|try.?again/i;

/**
 * A provider reported an error in place of a reply, although the HTTP request itself succeeded: an `error`
 * event inside a stream, or an error object in the body of a `200` response (OpenRouter answers
 * `{ "error": { "code": 429, "message": "…" } }` that way). The message is the provider's; `isRetryable` is
 * worked out once, from the code (408, 409, 429, 5xx) or a transient-sounding error type.
 *
 * @example
 * ```ts
 * // a job's error after three such answers:
 * // model call failed after 3 attempts: ModelProviderError: Rate limit exceeded (code 429)
 * ```
 */
export class ModelProviderError extends StatekError {
  /** The provider's code (`429`, `"rate_limit_exceeded"`), when it gave one. */
  readonly code: string | number | undefined;
  /** The HTTP-like status the error stands for, when one is known. */
  readonly statusCode: number | undefined;
  /** What the provider sent, as it was parsed. */
  readonly data: unknown;

  constructor({ message, code, statusCode, type, isRetryable, data }: {
    message: string;
    code?: string | number | undefined;
    statusCode?: number | undefined;
    type?: string | undefined;
    /** Overrides the retry decision taken from the code (the provider package may know better). */
    isRetryable?: boolean | undefined;
    data?: unknown;
  }) {
    const status = statusCode ?? (typeof code === "number" ? code : typeof code === "string" && /^\d{3}$/.test(code) ? Number(code) : undefined);
    const label = code ?? type;
    super({
      name: "ModelProviderError",
      message: `${message}${label !== undefined && !message.includes(String(label)) ? ` (code ${label})` : ""}`,
      isRetryable: isRetryable ?? ((status !== undefined && RETRYABLE_STATUS(status)) ||
        RETRYABLE_NAMES.test(`${typeof code === "string" ? code : ""} ${type ?? ""}`)),
    });
    this.code = code;
    this.statusCode = status;
    this.data = data;
  }
}
