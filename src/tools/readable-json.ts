/**
 * @module
 * Values as JSON for people (approvers, operators) and the store: what an approval request shows of a call's
 * arguments, what a parent learns of a child's exit value.
 */
import { llmRepr } from "./llm-repr.ts";

/** A JSON value. */
export type ReadableJson = null | boolean | number | string | ReadableJson[] | { [key: string]: ReadableJson };

/** Longest string kept. */
const MAX_STRING = 10_000;

/**
 * A value as JSON for people to read: plain data stays data, dates become ISO strings, anything else (host
 * objects, functions, cycles, deep nesting) its readable form.
 */
export function toReadableJson(value: unknown, depth = 0, seen = new Set<object>()): ReadableJson {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return llmRepr(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (seen.has(value) || depth >= 8) return llmRepr(value, { maxDepth: 1, maxItems: 5 });
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    seen.add(value);
    const items = value.slice(0, 100).map((item) => toReadableJson(item, depth + 1, seen));
    seen.delete(value);
    return items;
  }
  if (proto !== Object.prototype && proto !== null) return llmRepr(value, { maxDepth: 1, maxItems: 5 });
  seen.add(value);
  const out: { [key: string]: ReadableJson } = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toReadableJson(item, depth + 1, seen);
  seen.delete(value);
  return out;
}
