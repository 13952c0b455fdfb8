/**
 * @module
 * What a job does with its cells' type errors (`typeCheck`, metadata `TYPE_CHECK`): `refuse` (the default) does
 * not run a cell that has any, and the model reads them; `warn` prints them first and runs the cell; `off` does
 * not check.
 */

/** The modes, in the order they are listed to users. */
export const TYPE_CHECK_MODES = ["refuse", "warn", "off"] as const;

/** What a job does with its cells' type errors. */
export type TypeCheckMode = (typeof TYPE_CHECK_MODES)[number];

/** The mode a job runs with when nothing sets one. */
export const DEFAULT_TYPE_CHECK: TypeCheckMode = "refuse";

/** True for a mode's name. */
export function isTypeCheckMode(value: unknown): value is TypeCheckMode {
  return typeof value === "string" && (TYPE_CHECK_MODES as readonly string[]).includes(value);
}

/** The mode set by a job's `TYPE_CHECK` metadata (any letter case), else the default; a `TypeError` for another value. */
export function typeCheckModeOf(metadata: Readonly<Record<string, unknown>>): TypeCheckMode {
  const value = metadata.TYPE_CHECK;
  if (value === undefined || value === null) return DEFAULT_TYPE_CHECK;
  const mode = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (!isTypeCheckMode(mode)) throw new TypeError(`metadata TYPE_CHECK must be one of ${TYPE_CHECK_MODES.map((name) => JSON.stringify(name)).join(", ")}, got ${JSON.stringify(value)}`);
  return mode;
}
