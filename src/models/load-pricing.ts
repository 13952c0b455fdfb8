/**
 * @module
 * Reading and checking pricing tables given by the application: a JSON file of
 * `{ "provider/model": { "input": 0.25, "cachedInput": 0.025, "output": 2 } }`, or the same object in code.
 */
import { readFileSync } from "node:fs";
import { InvalidPricingError } from "../errors/invalid-pricing-error.ts";
import type { ModelPrice, PricingTable } from "./pricing.ts";
import { errorMessage } from "../errors/error-text.ts";

/**
 * Reads a pricing file.
 *
 * @throws {InvalidPricingError} When the file cannot be read, is not JSON, or has an entry that is not a price.
 *
 * @example
 * ```ts
 * const table = { ...BUILT_IN_PRICING, ...loadPricingFile("./prices.json") };
 * ```
 */
export function loadPricingFile(path: string): PricingTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new InvalidPricingError({ source: path, reason: `cannot read the pricing file: ${errorMessage(error)}`, cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidPricingError({ source: path, reason: `not JSON: ${errorMessage(error)}`, cause: error });
  }
  return checkPricing(parsed, path);
}

/**
 * Checks a pricing table given in code or read from a file.
 *
 * @throws {InvalidPricingError} Naming the first entry that is not a price.
 */
export function checkPricing(table: unknown, source = "pricing"): PricingTable {
  if (typeof table !== "object" || table === null || Array.isArray(table)) {
    throw new InvalidPricingError({ source, reason: 'expected an object of "provider/model": { input, cachedInput?, output } entries' });
  }
  const checked: Record<string, ModelPrice> = {};
  for (const [key, entry] of Object.entries(table)) {
    if (!/^[^/\s]+\/\S+$/.test(key)) {
      throw new InvalidPricingError({ source, reason: `${JSON.stringify(key)} is not a "provider/model" key` });
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new InvalidPricingError({ source, reason: `${JSON.stringify(key)} must be an object { input, cachedInput?, output }` });
    }
    const fields = entry as Record<string, unknown>;
    for (const name of Object.keys(fields)) {
      if (!["input", "cachedInput", "output"].includes(name)) {
        throw new InvalidPricingError({ source, reason: `${JSON.stringify(key)}.${name} is not a price field (input, cachedInput, output)` });
      }
    }
    const number = (name: string, required: boolean): number | undefined => {
      const value = fields[name];
      if (value === undefined && !required) return undefined;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new InvalidPricingError({
          source,
          reason: `${JSON.stringify(key)}.${name} must be a number ≥ 0 (USD per million tokens), got ${JSON.stringify(value)}`,
        });
      }
      return value;
    };
    const input = number("input", true)!;
    const output = number("output", true)!;
    const cachedInput = number("cachedInput", false);
    checked[key] = cachedInput === undefined ? { input, output } : { input, cachedInput, output };
  }
  return checked;
}
