/**
 * @module
 * What a check of one cell is made of, prepared on the scheduling thread from what only it has — live tools,
 * classes and bindings, the stored variables — and remembered so that a step pays only for what changed: a
 * job's declarations are kept for its agent (and remade when the exposed classes change), and a stored
 * variable's type for as long as its stored row is the same.
 */
import type { VariableRow } from "../store/store.ts";
import { JobDeclarations, type JobScope } from "./job-declarations.ts";
import { declaringCells } from "./declaring-cells.ts";
import { storedType, type StoredType } from "./stored-shape.ts";
import { ANY } from "./type-shape.ts";
import type { CellCheckInput } from "./type-check-result.ts";

/** One cell to check, and the job it belongs to. */
export interface CellCheckJob {
  /** What the job's declarations are kept for (its agent): the same owner and `scopeKey` give the same declarations. */
  readonly owner: object;
  /** What else the declarations depend on (the job's allowed tools). */
  readonly scopeKey: string;
  /** The job's scope; read only when its declarations are not kept. */
  scope(): JobScope;
  /** The stored variables, in definition order. */
  readonly variables: readonly VariableRow[];
  /**
   * Names in scope that the workspace does not store (the job's shared memory), declared `any`: their values
   * may change between the check and the read. A stored variable or a declaration of the same name wins.
   */
  readonly shared?: readonly string[];
  /** The TypeScript source of the cells that ran before, earliest first. */
  readonly cells: readonly string[];
  /** The cell to check. */
  readonly cell: string;
}

/** The type of a shared-memory name. */
const SHARED: StoredType = Object.freeze({ holds: "value", shape: ANY });

/** Declarations kept per owner (one per allowed-tools set and exposed-classes version); the oldest go first. */
const MAX_SCOPES_PER_OWNER = 16;

/** Prepared declarations and variable types, kept weakly by their owners. */
export class CheckInputs {
  readonly #declarations = new WeakMap<object, Map<string, JobDeclarations>>();
  readonly #types = new WeakMap<VariableRow, { declarations: JobDeclarations; type: StoredType }>();

  /** The input of the checker's thread for `job`. */
  prepare(job: CellCheckJob): CellCheckInput {
    let declarations = this.#kept(job);
    const shadowed = job.variables.filter((row) => declarations.names.has(row.name));
    // A variable named like a tool or a context value takes its place in the workspace (and in the declarations).
    if (shadowed.length) declarations = new JobDeclarations(job.scope(), new Set(shadowed.map((row) => row.name)));
    const variables = job.variables.map((row) => ({ name: row.name, type: this.#typeOf(row, declarations) }));
    const stored = new Set(variables.map((variable) => variable.name));
    for (const name of new Set(job.shared ?? [])) {
      if (!stored.has(name) && !declarations.names.has(name)) variables.push({ name, type: SHARED });
    }
    // Earlier cells that declare nothing are left out: they change no verdict, only the cache key.
    return { declarations: declarations.text, cells: declaringCells(job.cells), variables, cell: job.cell };
  }

  #kept(job: CellCheckJob): JobDeclarations {
    let byKey = this.#declarations.get(job.owner);
    if (!byKey) this.#declarations.set(job.owner, (byKey = new Map()));
    let declarations = byKey.get(job.scopeKey);
    if (!declarations) {
      declarations = new JobDeclarations(job.scope());
      byKey.set(job.scopeKey, declarations);
      if (byKey.size > MAX_SCOPES_PER_OWNER) byKey.delete(byKey.keys().next().value!);
    }
    return declarations;
  }

  #typeOf(row: VariableRow, declarations: JobDeclarations): StoredType {
    const kept = this.#types.get(row);
    if (kept?.declarations === declarations) return kept.type;
    const type = storedType(row.blob, (key) => declarations.handleShape(key));
    this.#types.set(row, { declarations, type });
    return type;
  }
}
