/**
 * @module
 * Reads stored workspace variables back into host values without a VM, for job views: plain data is
 * decoded, functions and classes become {@link StoredDefinition}s, handles re-attach to bindings and tools,
 * and what cannot be restored becomes a {@link Tombstone}.
 */
import type { VariableRow } from "../store/store.ts";
import type { Tool } from "../tools/tool.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
import type { StoredDefinition, Tombstone } from "./stored-values.ts";

/** What persisted handle keys resolve against. */
export interface DecodeScope {
  bindings: ReadonlyMap<string, unknown>;
  tools: readonly Tool[];
}

/** Decodes variables in definition order. Throws when a blob is malformed. */
export function decodeVariables(rows: readonly VariableRow[], scope: DecodeScope): Record<string, unknown> {
  const tools = new Map(scope.tools.map((tool) => [tool.name, tool]));
  const codec = createHostCodec({
    table: new HandleTable(),
    describeHandle: () => ({ key: null }),
    resolveKey(key) {
      const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      if (kind === "binding" && scope.bindings.has(name)) return { value: scope.bindings.get(name) };
      if (kind === "tool" && tools.has(name)) return { value: tools.get(name) };
      return { why: `${key} is not available in this process` };
    },
  });
  const ordered = [...rows].sort((a, b) => a.position - b.position);
  return codec.decodeAll(ordered.map((row) => [row.name, row.blob]));
}

/** Decodes one codec text produced by the workspace (an exit status), or `undefined` for `null`. */
export function decodeValue(text: string | null, scope: DecodeScope): unknown {
  if (text === null) return undefined;
  return decodeVariables([{ name: "value", blob: text, position: 0 }], scope).value;
}

export type { StoredDefinition, Tombstone };
