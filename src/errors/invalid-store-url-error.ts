import { StatekError } from "./statek-error.ts";

/**
 * A store was given as a URL whose scheme no store understands (`mysql://…`, a mistyped `postgress://…`).
 * The URL in the message and in {@link InvalidStoreUrlError.url} has its password masked.
 *
 * @example
 * ```ts
 * await Statek.open({ store: "postgress://app:secret@db/jobs" });
 * // InvalidStoreUrlError: unknown store URL scheme 'postgress' in postgress://app:***@db/jobs;
 * // a store is a postgres:// or postgresql:// URL, a file: URL, a file path or ":memory:"
 * ```
 */
export class InvalidStoreUrlError extends StatekError {
  /** The scheme as given, without `://`. */
  readonly scheme: string;
  /** The URL with its password masked. */
  readonly url: string;
  /** The schemes a store URL may have. */
  readonly acceptedSchemes: readonly string[];

  constructor({ scheme, url, acceptedSchemes }: { scheme: string; url: string; acceptedSchemes: readonly string[] }) {
    super({
      name: "InvalidStoreUrlError",
      message:
        `unknown store URL scheme '${scheme}' in ${url}; a store is a ${acceptedSchemes.filter((name) => name !== "file").map((name) => `${name}://`).join(" or ")} URL, ` +
        `a file: URL, a file path or ":memory:"`,
    });
    this.scheme = scheme;
    this.url = url;
    this.acceptedSchemes = acceptedSchemes;
  }
}
