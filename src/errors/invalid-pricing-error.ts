import { StatekError } from "./statek-error.ts";

/**
 * A pricing table (a JSON file or entries given in code) has an entry that is not a price. The message names
 * where the table came from and the entry.
 *
 * @example
 * ```ts
 * loadPricingFile("prices.json");
 * // InvalidPricingError: prices.json: "acme/m1".output must be a number ≥ 0 (USD per million tokens), got "cheap"
 * ```
 */
export class InvalidPricingError extends StatekError {
  /** The file, or `pricing` for entries given in code. */
  readonly source: string;
  readonly reason: string;

  constructor({ source, reason, cause }: { source: string; reason: string; cause?: unknown }) {
    super({ name: "InvalidPricingError", message: `${source}: ${reason}`, cause });
    this.source = source;
    this.reason = reason;
  }
}
