/**
 * @module
 * Whether a name can be written as a JavaScript identifier — tool names, parameter names, variable and
 * context names. (The codec keeps its own copy: it must stay self-contained to run inside the sandbox.)
 */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** True when `name` is a plain identifier (`calendar`, `_x`, `$1`), not a keyword check. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}
