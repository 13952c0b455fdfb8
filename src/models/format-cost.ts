/**
 * @module
 * How a cost in USD is printed: cents for amounts of a dollar or more, three significant digits below.
 */

/**
 * `$12.35`, `$0.0123`, `$0.000375`, `$0`.
 *
 * @example
 * ```ts
 * formatCost(0.000375); // "$0.000375"
 * ```
 */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return `$${usd >= 1 ? usd.toFixed(2) : Number(usd.toPrecision(3)).toString()}`;
}
