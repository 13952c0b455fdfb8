/**
 * @module
 * Whether a value is a plain record — an object literal or a null-prototype object, not an array, a class
 * instance or a handle — as named tool arguments and nested arguments must be.
 */

/** True for `{…}` and `Object.create(null)` objects. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
