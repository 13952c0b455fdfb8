/**
 * @module
 * Reading a field of a row that may be damaged: the store's row getters throw `CorruptRecordError` for a field
 * they cannot decode, and a page shows what it can of such a row rather than failing.
 */

/** A field of a possibly damaged row: `undefined` when its getter throws. */
export function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
