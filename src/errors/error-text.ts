/**
 * @module
 * Anything thrown, as text: the two forms every message that quotes an error uses. (The model reads thrown
 * values through `formatError` in `tools/`, which shows a thrown non-error the way it shows any value.)
 */

/** The message of an error, or the text of anything else thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `<ErrorName>: <message>` for an error, the text of anything else thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
