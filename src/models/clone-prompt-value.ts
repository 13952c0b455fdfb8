/**
 * A deep copy of a prompt value (messages, parts, JSON schemas), as plain data. `structuredClone` is not
 * enough: prompt file parts may hold `URL`s, which it refuses. Keys whose value is `undefined` are left out:
 * the `ai` package fills in `providerOptions: undefined` on every message, which means the same as no key to
 * any provider, and would otherwise make `deepStrictEqual` against a hand-written message fail. A `Buffer`
 * stays a `Buffer`.
 *
 * A value nobody can change any more — plain data frozen all the way down, as the messages a job keeps between
 * its requests are — is copied once: its copy is frozen too and handed out again for the same value, so a
 * conversation recorded request after request costs only its new messages.
 *
 * @example
 * ```ts
 * const copy = clonePromptValue(message); // later changes to `message` do not reach `copy`
 * ```
 */
export function clonePromptValue<T>(value: T): T {
  return cloneAny(value) as T;
}

/** The frozen copies of values frozen all the way down, by the value (a value that is collected takes its copy along). */
const settledCopies = new WeakMap<object, unknown>();

function cloneAny(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const settled = settledCopies.get(value);
  if (settled !== undefined) return settled;
  if (value instanceof URL) return new URL(value.href);
  if (value instanceof Date) return new Date(value.getTime());
  // `slice` copies the bytes and keeps the class (Buffer or Uint8Array).
  if (value instanceof Uint8Array) return value.slice();
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) copy = value.map(cloneAny);
  else {
    const fields: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      if (entry !== undefined) fields[key] = cloneAny(entry);
    }
    copy = fields;
  }
  if (isSettled(value)) settledCopies.set(value, Object.freeze(copy));
  return copy;
}

/**
 * Whether `value` (an array or object whose members have just been copied) can never change: frozen, plain,
 * holding data properties only (a getter may answer differently each time), each member a primitive or settled.
 */
function isSettled(value: object): boolean {
  if (!Object.isFrozen(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && prototype !== Array.prototype) return false;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    if (!("value" in descriptor)) return false;
    const member: unknown = descriptor.value;
    if (typeof member === "object" && member !== null && !settledCopies.has(member)) return false;
    if (typeof member === "function") return false;
  }
  return true;
}
