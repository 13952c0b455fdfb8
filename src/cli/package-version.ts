/**
 * @module
 * The installed package's version, for `statek --version`.
 */
import { readFileSync } from "node:fs";

/** The `version` of STATEK's package.json. */
export function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return String((JSON.parse(text) as { version?: unknown }).version ?? "unknown");
}
