/**
 * A deep copy of a prompt value (messages, parts, JSON schemas), as plain data. `structuredClone` is not
 * enough: prompt file parts may hold `URL`s, which it refuses. Keys whose value is `undefined` are left out:
 * the `ai` package fills in `providerOptions: undefined` on every message, which means the same as no key to
 * any provider, and would otherwise make `deepStrictEqual` against a hand-written message fail. A `Buffer`
 * stays a `Buffer`.
 *
 * @example
 * ```ts
 * const copy = clonePromptValue(message); // later changes to `message` do not reach `copy`
 * ```
 */
export function clonePromptValue<T>(value: T): T {
  return cloneAny(value) as T;
}

function cloneAny(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneAny);
  if (value instanceof URL) return new URL(value.href);
  if (value instanceof Date) return new Date(value.getTime());
  // `slice` copies the bytes and keeps the class (Buffer or Uint8Array).
  if (value instanceof Uint8Array) return value.slice();
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== undefined) copy[key] = cloneAny(entry);
  }
  return copy;
}
