/**
 * @module
 * Reads fields of store rows that may be corrupt. The SQLite store turns an unreadable column into a
 * property that throws `CorruptRecordError`; the CLI must still show the rest of the job, and the reason.
 */
import { formatError } from "../tools/call-tool.ts";

/** A field's value, or why it could not be read. */
export type FieldRead<T> = { ok: true; value: T } | { ok: false; error: string };

/** Reads `row[key]`, catching the error a corrupt column throws. */
export function readField<Row extends object, Key extends keyof Row>(row: Row, key: Key): FieldRead<Row[Key]> {
  try {
    return { ok: true, value: row[key] };
  } catch (error) {
    return { ok: false, error: formatError(error) };
  }
}

/** A copy of a row safe to `JSON.stringify`: a corrupt field becomes `{ "$corrupt": "<error>" }`. */
export function toPlainRow(row: object): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(row)) {
    const read = readField(row as Record<string, unknown>, key);
    plain[key] = read.ok ? read.value : { $corrupt: read.error };
  }
  return plain;
}
