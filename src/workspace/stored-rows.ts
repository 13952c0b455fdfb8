/**
 * @module
 * The stored variable rows of one workspace, and how a collected set of texts changes them: only variables
 * whose text changed are written, variables that are gone are deleted, and a changed text that names a host
 * object the job was never given (see `reference-guard.ts`) is stored as a tombstone instead. Every changed
 * text is decoded on the host before it is stored (the guest may have crafted it): one that does not decode
 * is stored as a tombstone, so nothing unreadable ever reaches the store.
 *
 * A collect reports the texts of the variables the cell could have changed and the names of all of them
 * (`guest-variables.ts`); a variable named without a text keeps its row. The work here follows the change,
 * not the workspace: what a row's text says (a class, a tombstone) is read once, when the row is set, and a
 * changed text is checked together with the rows it refers into, not with every row.
 */
import type { VariableRow } from "../store/store.ts";
import type { Codec } from "./codec/codec.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
import type { ReferenceGuard } from "./membrane/reference-guard.ts";

/** What the guest's `collect` reports. */
export interface Collected {
  /** The texts of the variables the collect encoded. */
  texts: Record<string, string>;
  problems: Array<{ path: string; reason: string }>;
  /**
   * Every variable, in definition order, when the set of variables changed since the last collect (a stored
   * variable missing from it was deleted); absent when it did not.
   */
  order?: string[];
  /** How many variables the collect encoded. */
  encoded?: number;
  /** The guest asks for its variables to be restored before the next cell (it starts its groups over). */
  regroup?: boolean;
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

const TOMBSTONE = '"$":"tomb"';

/** The codec that checks texts: host references are not resolved, only read (one for all, made once). */
const CHECKER: Codec = createHostCodec({
  table: new HandleTable(),
  describeHandle: () => ({ key: null }),
  resolveKey: () => ({ why: "not resolved while checking" }),
});

/** The rows a workspace knows are stored. */
export class StoredRows {
  readonly #rows = new Map<string, VariableRow>();
  /** Rows whose text holds a class definition, and rows whose text holds a tombstone. */
  readonly #classes = new Set<string>();
  readonly #tombstones = new Set<string>();
  #nextPosition = 0;

  constructor(rows: readonly VariableRow[]) {
    const ordered = [...rows].sort((a, b) => a.position - b.position);
    for (const row of ordered) this.#set(row);
    this.#nextPosition = ordered.length ? ordered[ordered.length - 1]!.position + 1 : 0;
  }

  #set(row: VariableRow): void {
    this.#rows.set(row.name, row);
    const mark = (set: Set<string>, yes: boolean) => (yes ? set.add(row.name) : set.delete(row.name));
    mark(this.#classes, CLASS_SOURCE.test(row.blob));
    mark(this.#tombstones, row.blob.includes(TOMBSTONE));
  }

  #delete(name: string): void {
    this.#rows.delete(name);
    this.#classes.delete(name);
    this.#tombstones.delete(name);
  }

  /**
   * True when a stored text holds a tombstone: the VM may then hold a live value where the store has none (a
   * full collect would have reported it as a problem).
   */
  holdsTombstones(): boolean {
    return this.#tombstones.size > 0;
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
    for (const name of this.#classes) {
      if (list.includes(name)) continue;
      if (word.test(this.#rows.get(name)!.blob)) return true;
    }
    return false;
  }

  /** Applies a collect; texts with references the guard does not know become tombstones. */
  apply(collected: Collected, guard: ReferenceGuard): RowChanges {
    const changes: RowChanges = { put: [], deleted: [], changed: new Set(), refused: [] };
    for (const name of collected.order ?? Object.keys(collected.texts)) {
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
      this.#set(row);
      changes.put.push(row);
      changes.changed.add(name);
    }
    if (changes.put.length) this.#refuseUndecodable(changes);
    if (!collected.order) return changes;
    const present = new Set(collected.order.filter((name) => typeof name === "string"));
    for (const name of [...this.#rows.keys()]) {
      if (present.has(name)) continue;
      this.#delete(name);
      changes.deleted.push(name);
    }
    return changes;
  }

  /**
   * Decodes the changed rows as a restore would — with the rows their texts refer into, transitively, since
   * only those can make them fail — and turns each changed one that does not decode into a tombstone. Host
   * references are not resolved here: only the text is checked.
   */
  #refuseUndecodable(changes: RowChanges): void {
    const put = new Map(changes.put.map((row) => [row.name, row]));
    const codec = CHECKER;
    const checked = new Set(put.keys());
    // The rows the changed texts refer into, as the encoder writes those references: decoded in the first pass,
    // a changed text that shares values with another variable neither fails nor needs a second pass. (A
    // reference written any other way is still found by the decoder below, a pass later.)
    for (const name of checked) {
      for (const target of crossReferenceTargets(this.#rows.get(name)?.blob ?? "")) if (this.#rows.has(target)) checked.add(target);
    }
    const replacedNames = new Set<string>();
    // Again after each replacement: a text that shared values with a replaced one no longer decodes either.
    for (let again = true; again;) {
      again = false;
      const referred = new Set<string>();
      const broken: Array<[string, string]> = [];
      const rows = [...checked].map((name) => this.#rows.get(name)!).sort((a, b) => a.position - b.position);
      codec.decodeAll(rows.map((row) => [row.name, row.blob]), undefined, {
        isolate: true,
        sharing: (_name, refs) => {
          for (const [name] of refs) if (!checked.has(name) && this.#rows.has(name)) referred.add(name);
        },
        broken: (name, reason) => broken.push([name, reason]),
      });
      if (referred.size) {
        // A text refers into rows not decoded yet: what it found missing may be there. Decode again with them.
        for (const name of referred) checked.add(name);
        again = true;
        continue;
      }
      for (const [name, reason] of broken) {
        const row = put.get(name);
        if (!row || replacedNames.has(name)) continue;
        replacedNames.add(name);
        const why = `its value could not be read back (${reason})`;
        row.blob = tombstoneText(why, name);
        this.#set(row);
        changes.refused.push(`${name} was not persisted: ${why}`);
        again = true;
      }
    }
  }
}

/** How the codec's encoder writes a reference into another variable's text: `{"$":"xref","n":"name","i":3}`. */
const CROSS_REFERENCE = /\{"\$":"xref","n":("(?:[^"\\]|\\.)*"),"i":\d+\}/g;

/** The variables a text refers into, as far as its encoder's form shows them (names that do not parse are skipped). */
function crossReferenceTargets(text: string): string[] {
  if (!text.includes('"$":"xref"')) return [];
  const names: string[] = [];
  for (const match of text.matchAll(CROSS_REFERENCE)) {
    try {
      const name: unknown = JSON.parse(match[1]!);
      if (typeof name === "string") names.push(name);
    } catch {
      // Not the encoder's form: the decoder reports what it refers to.
    }
  }
  return names;
}
