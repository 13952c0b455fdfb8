/**
 * @module
 * The host's half of the message protocol between the guest runtime and the host (the guest's half is
 * written out inside `guest-runtime.ts`, which cannot import). A guest message is `send(op, ...strings)`,
 * where `op` is the index of the operation in {@link GUEST_OPERATIONS} (a number crosses the engine boundary
 * without being decoded as text). The reply is one string whose first character says what it holds, so the
 * common answers cost the guest no JSON parsing:
 *
 * | reply | meaning |
 * |---|---|
 * | `""` | `undefined` |
 * | `s<text>` | the string `<text>` |
 * | `n<number>` | a finite number |
 * | `b1`, `b0` | `true`, `false` |
 * | `z` | `null` |
 * | `v<codec text>` | any other value, in the codec's format |
 * | `e<json>` | throw the error `{ name, message }` |
 * | `p<id>` | a pending host promise, settled later with its own reply |
 * | `a<key>` | (settling a tool call) approved: the guest makes the call again as `callApproved(id, key, args)` |
 * | `c<json>` | a child job's handle `{ id, role, state }` (what a tool returning `ctx.startJob(…)` gives) |
 * | `m` | (for `get`) the property is a method |
 *
 * A transport may hand the guest the replies for `undefined`, numbers, booleans and `null` as those values
 * themselves (the QuickJS executor does); the guest accepts either form.
 *
 * Argument lists travel as one text: `""` for none, a JSON array when every argument is a string, finite
 * number, boolean or `null`, and a codec text otherwise. `callNumbers(id, member, ...numbers)` is `call` for
 * up to three finite numbers, sent as they are (the engine turns them into text faster than guest code can).
 */

import { parseUntrusted } from "../membrane/untrusted-json.ts";

/** The operations a guest message can name; the guest sends the index. */
export const GUEST_OPERATIONS = ["done", "get", "set", "has", "keys", "call", "print", "repr", "exit", "resolve", "now", "random", "callNumbers", "timer", "clearTimer", "monotonic", "future", "callApproved", "task", "shared"] as const;

/**
 * The message an engine (not the guest) sends when the cell's own code starts, after the runtime entries
 * that restore the workspace: what the host answers from then on belongs to the cell.
 */
export const CODE_START_OP = "begin";

/** Operation index by name, as the guest runtime is given it. */
export const GUEST_OPERATION_CODES: Readonly<Record<(typeof GUEST_OPERATIONS)[number], number>> = Object.freeze(
  Object.fromEntries(GUEST_OPERATIONS.map((name, index) => [name, index])) as Record<(typeof GUEST_OPERATIONS)[number], number>,
);

/** The name of operation `code`, or `""` for a code no operation has. */
export function operationName(code: number): string {
  return GUEST_OPERATIONS[code] ?? "";
}

/** `String.prototype.isWellFormed` (Node 20+; not in the ES2023 library the project compiles against). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** The reply for `undefined`. */
export const UNDEFINED_REPLY = "";
/** The reply for "this property is a method". */
export const METHOD_REPLY = "m";

/** Longest string sent raw (`s…`); longer ones go through the codec so one reply never doubles in size. */
const RAW_STRING_LIMIT = 1 << 20;

/**
 * The reply for a value; `encode` handles whatever has no shortcut. Strings with NUL characters or lone
 * surrogates take the codec path: the engine's C strings end at NUL, and its UTF-8 has no lone surrogates.
 */
export function valueReply(value: unknown, encode: (value: unknown) => string): string {
  switch (typeof value) {
    case "undefined":
      return UNDEFINED_REPLY;
    case "string":
      return value.length <= RAW_STRING_LIMIT && !value.includes("\0") && (value as WellFormedCheck).isWellFormed() ? "s" + value : "v" + encode(value);
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? "n" + value : "v" + encode(value);
    case "boolean":
      return value ? "b1" : "b0";
  }
  if (value === null) return "z";
  return "v" + encode(value);
}

/** The reply that makes the guest throw `name: message`. */
export function errorReply(name: string, message: string): string {
  return "e" + JSON.stringify({ name, message });
}

/** The reply for anything thrown on the host: its name and message cross, never its stack or the object. */
export function thrownReply(error: unknown): string {
  if (error instanceof Error) return errorReply(String(error.name), String(error.message));
  return errorReply("Error", `non-error thrown: ${typeof error === "string" ? error : typeof error}`);
}

/** The reply for a host promise the guest will be told about later. */
export function pendingReply(id: number): string {
  return "p" + id;
}

/** Decodes an argument list sent by the guest (see the module comment); `decode` reads codec texts. */
export function decodeArguments(text: string, decode: (text: string) => unknown): unknown[] {
  if (text === "") return [];
  if (text.charCodeAt(0) === 91 /* [ */) {
    const values: unknown = parseUntrusted(text);
    if (!Array.isArray(values)) throw new TypeError("malformed argument list");
    for (const value of values) {
      if (value !== null && typeof value === "object") throw new TypeError("malformed argument list");
    }
    return values;
  }
  const values = decode(text);
  if (!Array.isArray(values)) throw new TypeError("malformed argument list");
  return values;
}
