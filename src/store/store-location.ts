/**
 * @module
 * What a store string names: a SQLite file (a path, `file:` URL or `":memory:"`) or a PostgreSQL server
 * (`postgres://`, `postgresql://`). Any other `scheme://` is an error rather than a file path, so a mistyped
 * URL never opens a new empty database. Also the one rule for showing a store string: passwords masked.
 */
import { fileURLToPath } from "node:url";
import { InvalidStoreUrlError } from "../errors/invalid-store-url-error.ts";

/** Where the SQLite store lives when the application names none. */
export const DEFAULT_STORE_PATH = "./statek-data/statek.db";

/** The environment variable read for the store when none is given. */
export const STORE_ENV = "STATEK_STORE";

/** The URL schemes a store string may have. */
export const STORE_URL_SCHEMES = ["postgres", "postgresql", "file"] as const;

/** A store string, decoded. */
export type StoreLocation = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * Decodes a store string.
 *
 * @throws {InvalidStoreUrlError} For a `scheme://` that is not `postgres`, `postgresql` or `file`.
 * @throws {TypeError} For a `file:` URL that names no local file.
 */
export function parseStoreLocation(spec: string): StoreLocation {
  const scheme = SCHEME.exec(spec)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") return { kind: "postgres", connectionString: spec };
  if (scheme !== undefined && scheme !== "file") {
    throw new InvalidStoreUrlError({ scheme: SCHEME.exec(spec)![1]!, url: maskStoreLocation(spec), acceptedSchemes: STORE_URL_SCHEMES });
  }
  if (/^file:/i.test(spec)) {
    if (scheme === "file") {
      try {
        return { kind: "sqlite", path: fileURLToPath(spec) };
      } catch (error) {
        throw new TypeError(`store ${JSON.stringify(maskStoreLocation(spec))} is not a local file URL (write file:///absolute/path.db or file:relative/path.db)`, { cause: error });
      }
    }
    const path = spec.slice("file:".length);
    if (path === "") throw new TypeError('store "file:" names no file (write file:relative/path.db or file:///absolute/path.db)');
    return { kind: "sqlite", path };
  }
  return { kind: "sqlite", path: spec };
}

/**
 * A store string as logs, errors and pages may show it: a URL's password (and `password` parameters) as
 * `***`. A path is shown as it is.
 */
export function maskStoreLocation(spec: string): string {
  if (!SCHEME.test(spec)) return spec;
  try {
    const url = new URL(spec);
    if (url.password !== "") url.password = "***";
    for (const name of ["password", "sslpassword"]) if (url.searchParams.has(name)) url.searchParams.set(name, "***");
    return url.toString();
  } catch {
    // Not a URL the parser takes: mask whatever stands between `user:` and `@`, and any password parameter.
    return spec.replace(/^([^:]+:\/\/[^:/@]*:)[^@]*@/, "$1***@").replace(/((?:ssl)?password=)[^&]*/gi, "$1***");
  }
}

/**
 * The store string to use: the one given, else `STATEK_STORE` from `env`, else {@link DEFAULT_STORE_PATH}.
 * An empty `STATEK_STORE` counts as not set.
 */
export function resolveStoreSpec(given: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (given !== undefined) return given;
  const fromEnv = env[STORE_ENV];
  return fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : DEFAULT_STORE_PATH;
}
