/**
 * @module
 * Words for error messages: a noun with its indefinite article ("an Agent", "a User", "an object") and a short
 * description of what a caller passed ("a string", "an array", "null"), so every message reads correctly.
 */

const VOWEL = /^[aeiou]/i;
// Vowels that sound like "you" or "won" take "a": a User, a Unicode string, a one-off, a Euro.
const SOUNDS_CONSONANT = /^(u[bcdfgjklmnpqrstvz][aeiou]|eu|one)/i;

/** `word` with "a" or "an" before it: `withArticle("Agent")` → `"an Agent"`, `withArticle("User")` → `"a User"`. */
export function withArticle(word: string): string {
  return `${VOWEL.test(word) && !SOUNDS_CONSONANT.test(word) ? "an" : "a"} ${word}`;
}

/**
 * What a value is, for "expected …, got …" messages: `undefined`, `null`, `a string`, `an array`,
 * `a plain object`, `an instance of Calendar`, `a function`.
 */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null || proto === Object.prototype) return "a plain object";
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" ? `an instance of ${name}` : "an object";
  }
  return withArticle(typeof value);
}
