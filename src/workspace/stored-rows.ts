/**
 * @module
 * The stored variable rows of one workspace, and how a collected set of texts changes them: only variables
 * whose text changed are written, variables that are gone are deleted, and a changed text that names a host
 * object the job was never given (see `reference-guard.ts`) is stored as a tombstone instead. Every changed
 * text is decoded on the host before it is stored (the guest may have crafted it): one that does not decode
 * is stored as a tombstone, so nothing unreadable ever reaches the store.
 */
import type { VariableRow } from "../store/store.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
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

const CLASS_SOURCE = /"t":"fn","src":"(\/\*#private\*\/)?class\b/;

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

  /**
   * True when a stored class definition other than the named ones mentions one of `names`. Re-declaring a
   * class evaluates its `extends` clause, static members and computed keys against the variables of the time,
   * so after those variables changed a warm VM's class can differ from the one a cold restore would make.
   */
  classesMention(names: Iterable<string>): boolean {
    const list = [...names];
    if (!list.length) return false;
    const word = new RegExp(`(^|[^\\w$])(${list.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})($|[^\\w$])`);
    for (const row of this.#rows.values()) {
      if (!CLASS_SOURCE.test(row.blob) || list.includes(row.name)) continue;
      if (word.test(row.blob)) return true;
    }
    return false;
  }

  /** Applies a collect; texts with references the guard does not know become tombstones. */
  apply(collected: Collected, guard: ReferenceGuard): RowChanges {
    const changes: RowChanges = { put: [], deleted: [], changed: new Set(), refused: [] };
    for (const name of collected.order) {
      // The report comes from the guest: a name must be a string, and only an own text counts.
      if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(collected.texts, name)) continue;
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
    if (changes.put.length) this.#refuseUndecodable(changes);
    const present = new Set(collected.order.filter((name) => typeof name === "string"));
    for (const name of [...this.#rows.keys()]) {
      if (present.has(name)) continue;
      this.#rows.delete(name);
      changes.deleted.push(name);
    }
    return changes;
  }

  /**
   * Decodes the rows as a restore would (references into unchanged rows included) and turns each changed one
   * that does not decode into a tombstone. Host references are not resolved here: only the text is checked.
   */
  #refuseUndecodable(changes: RowChanges): void {
    const put = new Map(changes.put.map((row) => [row.name, row]));
    const codec = createHostCodec({
      table: new HandleTable(),
      describeHandle: () => ({ key: null }),
      resolveKey: () => ({ why: "not resolved while checking" }),
    });
    const replacedNames = new Set<string>();
    // Again after each replacement: a text that shared values with a replaced one no longer decodes either.
    for (let replaced = true; replaced;) {
      replaced = false;
      codec.decodeAll(this.ordered().map((row) => [row.name, row.blob]), undefined, {
        isolate: true,
        broken: (name, reason) => {
          const row = put.get(name);
          if (!row || replacedNames.has(name)) return;
          replacedNames.add(name);
          const why = `its value could not be read back (${reason})`;
          row.blob = tombstoneText(why, name);
          changes.refused.push(`${name} was not persisted: ${why}`);
          replaced = true;
        },
      });
    }
  }
}
