/**
 * @module
 * The codec as the host uses it: plain data is copied, every other object becomes a handle registered in the
 * workspace's {@link HandleTable}, and handle references coming back are looked up — an id the workspace
 * never issued is refused.
 */
import { createCodec, type Codec } from "../codec/codec.ts";
import { OpaqueValue } from "../../tools/llm-repr.ts";
import { StoredDefinition, Tombstone } from "../stored-values.ts";
import type { HandleTable } from "./handle-table.ts";

/** What the host codec needs from its workspace. */
export interface HostCodecOptions {
  table: HandleTable;
  /** How a host object persists: a key, or why it cannot. */
  describeHandle(value: object): { key: string | null; why?: string; callable?: boolean };
  /** The host object a persisted key stands for, or a reason it cannot be restored. */
  resolveKey(key: string): { value: unknown } | { why: string };
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

const foreignPrototypes = new Map<string, object>();

/** A prototype whose constructor is named `name`, so copies of guest class instances print as `Point {…}`. */
function foreignPrototype(name: string): object {
  let proto = foreignPrototypes.get(name);
  if (!proto) {
    const cls = { [name]: class {} }[name]!;
    proto = cls.prototype as object;
    foreignPrototypes.set(name, proto);
  }
  return proto;
}

/** Creates the host codec of one workspace. */
export function createHostCodec({ table, describeHandle, resolveKey }: HostCodecOptions): Codec {
  return createCodec({
    handleOf(value, mode) {
      if (isPlainData(value)) return undefined;
      const entry = table.register(value, describeHandle);
      if (mode === "persist") return entry.key ? { k: entry.key } : { why: entry.why ?? "a host object that cannot be restored" };
      return { id: entry.id, c: entry.className, f: entry.callable ? 1 : 0, k: entry.key, why: entry.why };
    },
    fromHandle(ref, path) {
      if (typeof ref.id === "number") {
        const entry = table.get(ref.id);
        if (!entry) throw new TypeError(`unknown handle ${ref.id}: handles cannot be forged`);
        return entry.value;
      }
      const resolved = resolveKey(String(ref.k));
      return "value" in resolved ? resolved.value : new Tombstone(resolved.why, path);
    },
    fromDefinition: (source, name) => new StoredDefinition(source, name),
    foreignPrototype,
    opaque: (description) => new OpaqueValue(description),
    tombstone: (why, path) => new Tombstone(why, path),
  });
}
