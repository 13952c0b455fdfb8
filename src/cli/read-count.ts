/**
 * @module
 * Reads a whole-number option (`--concurrency 20`), or reports a usage error naming it.
 */
import { CliError } from "../errors/cli-error.ts";

/** The option's value as a whole number of at least 1, or `undefined` when it was not given. */
export function readCount(value: string | boolean | string[] | undefined, name: string, command: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliError({ message: `${name} must be a whole number of at least 1 (got '${String(value)}')`, exitCode: 2, command });
  }
  return Number(value);
}
