/**
 * @module
 * The codec as the host uses it: plain data is copied, every other object becomes a handle registered in the
 * workspace's {@link HandleTable}, and handle references coming back are looked up — an id the workspace
 * never issued is refused. Texts from the guest are untrusted input: a reference *by key* (which could name
 * any binding or exposed object of the process) is only accepted by codecs that decode stored variables,
 * never by one that reads what agent code sends, and some host values never cross at all
 * ({@link refuseToExpose}).
 */
import { createCodec, type Codec } from "../codec/codec.ts";
import { OpaqueValue } from "../../tools/llm-repr.ts";
import { StoredDefinition, Tombstone } from "../stored-values.ts";
import type { HandleDescription, HandleTable } from "./handle-table.ts";
import { parseUntrusted } from "./untrusted-json.ts";

/** Most (hexadecimal) digits of a BigInt the host decodes, 400,000 bits: printing far larger ones takes seconds. */
export const MAX_BIGINT_DIGITS = 100_000;
/** Distinct foreign class names one codec remembers; more are shown as plain objects. */
const MAX_FOREIGN_CLASSES = 256;

/** What the host codec needs from its workspace. */
export interface HostCodecOptions {
  table: HandleTable;
  /** How a host object persists: a key, or why it cannot. */
  describeHandle(value: object): HandleDescription;
  /**
   * The host object a persisted key stands for, or a reason it cannot be restored. Without it, references by
   * key are refused (the codec reads what agent code sends).
   */
  resolveKey?(key: string): { value: unknown } | { why: string };
}

/** True for values the codec copies rather than handing out as handles. */
export function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return (value as { kind?: unknown }).kind !== "statek.tool";
  return (
    value instanceof Date || value instanceof RegExp || value instanceof Map || value instanceof Set ||
    value instanceof ArrayBuffer || value instanceof Error || (ArrayBuffer.isView(value) && !(value instanceof DataView))
  );
}

const FUNCTION_CONSTRUCTORS = new Set<unknown>([
  Function,
  Object.getPrototypeOf(async function () {}).constructor,
  Object.getPrototypeOf(function* () {}).constructor,
  Object.getPrototypeOf(async function* () {}).constructor,
]);

/**
 * Why a host value may never become a handle, or `undefined`. The host realm's global object, `process`,
 * the function constructors, `eval`, and built-in (native or bound) functions would each give agent code a
 * way to run host code or reach the whole process, whatever the application meant to expose.
 */
export function refuseToExpose(value: object): string | undefined {
  if (value === globalThis) return "the host's global object";
  if (typeof process !== "undefined" && value === process) return "the host's process object";
  if (typeof value !== "function") return undefined;
  if (FUNCTION_CONSTRUCTORS.has(value) || value === eval) return `the host's ${value === eval ? "eval" : "Function constructor"}`;
  if (Function.prototype.toString.call(value).endsWith("{ [native code] }")) return `a built-in host function (${value.name || "anonymous"})`;
  return undefined;
}

/** Creates the host codec of one workspace. */
export function createHostCodec({ table, describeHandle, resolveKey }: HostCodecOptions): Codec {
  const foreignPrototypes = new Map<string, object>();
  // A prototype whose constructor is named `name`, so copies of guest class instances print as `Point {…}`.
  const foreignPrototype = (name: string): object => {
    let proto = foreignPrototypes.get(name);
    if (!proto) {
      if (foreignPrototypes.size >= MAX_FOREIGN_CLASSES || name.length > 200) return Object.prototype;
      const cls = { [name]: class {} }[name]!;
      proto = cls.prototype as object;
      foreignPrototypes.set(name, proto);
    }
    return proto;
  };
  return createCodec({
    handleOf(value, mode) {
      if (isPlainData(value)) return undefined;
      const refusal = refuseToExpose(value);
      if (refusal) throw new TypeError(`${refusal} cannot cross into the workspace`);
      const entry = table.register(value, describeHandle);
      if (mode === "persist") return entry.key ? { k: entry.key } : { why: entry.why ?? "a host object that cannot be restored" };
      return { id: entry.id, c: entry.className, f: entry.callable ? 1 : 0, k: entry.key, why: entry.why };
    },
    fromHandle(ref, path) {
      if (ref.id !== undefined) {
        const entry = typeof ref.id === "number" ? table.get(ref.id) : undefined;
        if (!entry) throw new TypeError(`unknown handle ${String(ref.id)}: handles cannot be forged`);
        return entry.value;
      }
      if (!resolveKey || typeof ref.k !== "string") throw new TypeError("a host object can only be passed back as the handle it came in");
      const resolved = resolveKey(ref.k);
      return "value" in resolved ? resolved.value : new Tombstone(resolved.why, path);
    },
    fromDefinition: (source, name) => new StoredDefinition(String(source), String(name)),
    foreignPrototype: (name) => foreignPrototype(String(name)),
    opaque: (description) => new OpaqueValue(String(description)),
    tombstone: (why, path) => new Tombstone(String(why), String(path)),
    maxBigIntDigits: MAX_BIGINT_DIGITS,
    refuseThenables: true,
    parse: parseUntrusted,
  });
}
