/**
 * @module
 * A failed model call as the job's error and each failed attempt show it: the error, with the server's own
 * message when the provider package lost it (a flat `{ "message": … }` body read as `Bad Request`), then what
 * failed — the model (`provider/model`), the HTTP status and the URL without its query string or credentials,
 * so no API key in a URL reaches a log.
 */

/** The fields of an AI SDK `APICallError` read here (duck-typed: any copy of the package). */
interface ApiCallFacts {
  statusCode?: unknown;
  url?: unknown;
  responseBody?: unknown;
}

/**
 * `<ErrorName>: <message> (<model>, HTTP <status>, <url>)`; the parts not known are left out.
 *
 * @example
 * ```ts
 * describeModelError(apiCallError, "openai/gpt-5-mini");
 * // "AI_APICallError: The engine is currently overloaded (openai/gpt-5-mini, HTTP 503, https://api.openai.com/v1/chat/completions)"
 * ```
 */
export function describeModelError(error: unknown, modelName: string | undefined): string {
  const name = error instanceof Error ? error.name : "Error";
  let message = error instanceof Error ? error.message : String(error);
  const facts: string[] = modelName ? [modelName] : [];
  if (typeof error === "object" && error !== null) {
    const { statusCode, url, responseBody } = error as ApiCallFacts;
    const server = serverMessage(responseBody);
    if (server !== undefined && !message.includes(server)) message = message === "" || isStatusText(message) ? server : `${message}: ${server}`;
    if (typeof statusCode === "number") facts.push(`HTTP ${statusCode}`);
    if (typeof url === "string") facts.push(safeUrl(url));
  }
  return `${name}: ${message}${facts.length ? ` (${facts.join(", ")})` : ""}`;
}

/** The message of an error body the provider package may not know: `{ message }`, `{ detail }`, `{ error: "…" }`. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body !== "string" || !/^\s*\{/.test(body)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const fields = parsed as Record<string, unknown>;
  const nested = typeof fields.error === "object" && fields.error !== null ? (fields.error as Record<string, unknown>).message : undefined;
  for (const candidate of [nested, fields.message, fields.detail, fields.error]) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate.length > 2_000 ? `${candidate.slice(0, 2_000)}…` : candidate;
  }
  return undefined;
}

/** An HTTP reason phrase standing in for a message (`Bad Request`, `Service Unavailable`). */
function isStatusText(message: string): boolean {
  return /^[A-Z][A-Za-z' -]{1,40}$/.test(message) && message.split(" ").length <= 5;
}

/** The URL without credentials or query string (some providers take the API key as `?key=`). */
function safeUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}`;
  } catch {
    return text.replace(/[?#].*$/, "").replace(/\/\/[^/@]*@/, "//");
  }
}
