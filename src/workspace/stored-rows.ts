/**
 * @module
 * The stored variable rows of one workspace, and how a collected set of texts changes them: only variables
 * whose text changed are written, variables that are gone are deleted, and a changed text that names a host
 * object the job was never given (see `reference-guard.ts`) is stored as a tombstone instead.
 */
import type { VariableRow } from "../store/store.ts";
import type { ReferenceGuard } from "./membrane/reference-guard.ts";

/** What the guest's `collect` reports. */
export interface Collected {
  texts: Record<string, string>;
  problems: Array<{ path: string; reason: string }>;
  order: string[];
}

/** How a collect changed the rows. */
export interface RowChanges {
  put: VariableRow[];
  deleted: string[];
  /** Names whose text changed (forged texts included). */
  changed: Set<string>;
  /** Notices for texts that were refused. */
  refused: string[];
}

/** The codec text of a tombstone for `name`. */
export function tombstoneText(why: string, name: string): string {
  return JSON.stringify({ v: { $: "tomb", why, at: name } });
}

/** The rows a workspace knows are stored. */
export class StoredRows {
  readonly #rows = new Map<string, VariableRow>();
  #nextPosition = 0;

  constructor(rows: readonly VariableRow[]) {
    const ordered = [...rows].sort((a, b) => a.position - b.position);
    for (const row of ordered) this.#rows.set(row.name, row);
    this.#nextPosition = ordered.length ? ordered[ordered.length - 1]!.position + 1 : 0;
  }

  /** The rows in definition order. */
  ordered(): VariableRow[] {
    return [...this.#rows.values()].sort((a, b) => a.position - b.position);
  }

  /** The `[name, text]` pairs the guest's `restore` takes. */
  restoreText(): string {
    return JSON.stringify(this.ordered().map((row) => [row.name, row.blob]));
  }

  /** Applies a collect; texts with references the guard does not know become tombstones. */
  apply(collected: Collected, guard: ReferenceGuard): RowChanges {
    const changes: RowChanges = { put: [], deleted: [], changed: new Set(), refused: [] };
    for (const name of collected.order) {
      let blob = collected.texts[name];
      if (typeof blob !== "string") continue;
      const stored = this.#rows.get(name);
      if (stored?.blob === blob) continue;
      const unknown = guard.unknownReferences(blob);
      if (unknown.length) {
        const why = `it refers to a host object this job was never given (${unknown.slice(0, 3).join(", ")})`;
        blob = tombstoneText(why, name);
        changes.refused.push(`${name} was not persisted: ${why}`);
        if (stored?.blob === blob) continue;
      }
      const row = { name, blob, position: stored?.position ?? this.#nextPosition++ };
      this.#rows.set(name, row);
      changes.put.push(row);
      changes.changed.add(name);
    }
    const present = new Set(collected.order);
    for (const name of [...this.#rows.keys()]) {
      if (present.has(name)) continue;
      this.#rows.delete(name);
      changes.deleted.push(name);
    }
    return changes;
  }
}
