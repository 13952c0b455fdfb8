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
import { HostReferences, type ExposedClasses } from "./membrane/host-references.ts";
import type { StoredDefinition, Tombstone } from "./stored-values.ts";

/** What persisted handle keys resolve against. */
export interface DecodeScope {
  bindings: ReadonlyMap<string, unknown>;
  tools: readonly Tool[];
  exposed?: ExposedClasses;
}

/** Loads what the rows refer to and returns the decoder scope for {@link decodeVariables}. */
export async function loadReferences(texts: Iterable<string>, scope: DecodeScope): Promise<HostReferences> {
  const references = new HostReferences(scope);
  await references.preload(texts);
  return references;
}

/**
 * Decodes variables in definition order (after {@link loadReferences}). A blob that cannot be decoded (a
 * damaged row, a text written before the host checked them) becomes a {@link Tombstone} saying so, so the job
 * stays readable.
 */
export function decodeVariables(rows: readonly VariableRow[], references: HostReferences): Record<string, unknown> {
  const codec = createHostCodec({
    table: new HandleTable(),
    describeHandle: () => ({ key: null }),
    resolveKey: (key) => references.resolve(key),
  });
  const ordered = [...rows].sort((a, b) => a.position - b.position);
  return codec.decodeAll(ordered.map((row) => [row.name, row.blob]), undefined, { isolate: true });
}

/**
 * Decodes one codec text produced by the workspace (an exit status, an error handler's context), or
 * `undefined` for `null`; a text that cannot be decoded becomes a {@link Tombstone}.
 */
export function decodeValue(text: string | null, references: HostReferences): unknown {
  if (text === null) return undefined;
  return decodeVariables([{ name: "value", blob: text, position: 0 }], references).value;
}

export type { StoredDefinition, Tombstone };
