/**
 * @module
 * What the SQL adapters (`sqlite/`, `postgres/`) build alike, written once: the column of each field, select
 * lists, parameters, and the conditions of the job filters, pages and cursors, assignments and insert lists.
 * Where the engines' SQL differs — `?` against `$n`, a list against an array parameter, byte-wise comparison,
 * a prefix test — each adapter gives a {@link SqlDialect}; what only one engine has (`INDEXED BY`, `FOR UPDATE
 * SKIP LOCKED`, `unnest`) stays in its own queries file.
 */
import type { AgentValues, FutureValues, JobPageQuery, JobQuery, JobValues, MemoryValues } from "./store-adapter.ts";

/** The parts of SQL in which the engines differ, for the statements built here. */
export interface SqlDialect {
  /** The engine's name in errors (`SQLite store`). */
  readonly name: string;
  /** The text of the parameter numbered `position` (from 1): `?` or `$1`. */
  placeholder(position: number): string;
  /** `column` equals one of `values` (never empty). */
  oneOf(column: string, values: readonly string[], parameters: SqlParameters): string;
  /** `column` as text compared byte by byte, as ids are in cursors and orders. */
  bytewise(column: string): string;
  /** `column` starts with `prefix`. */
  startsWith(column: string, prefix: string, parameters: SqlParameters): string;
  /** What orders rows inserted in the same millisecond (SQLite's `rowid`, a sequence column). */
  readonly insertionOrder: string;
}

/** The values of one statement, in order, each added where its placeholder goes. */
export class SqlParameters {
  readonly values: unknown[] = [];
  readonly #dialect: SqlDialect;

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  /** Adds `value`; returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return this.#dialect.placeholder(this.values.length);
  }
}

/** Job fields and their columns. */
export const JOB_COLUMNS: { readonly [K in keyof JobValues]-?: string } = {
  id: "id", role: "role", status: "status", params: "params", metadata: "metadata", parentId: "parent_id", createdAt: "created_at",
  updatedAt: "updated_at", version: "version", turns: "turns", pendingSeq: "pending_seq", historyLength: "history_length",
  exitStatus: "exit_status", error: "error", usage: "usage", state: "state", wakeAt: "wake_at", cell: "cell", leaseOwner: "lease_owner",
  leaseEpoch: "lease_epoch", leaseUntil: "lease_until", forkedFrom: "forked_from", versionsFrom: "versions_from",
};

/** Future fields and their columns. */
export const FUTURE_COLUMNS: { readonly [K in keyof FutureValues]-?: string } = {
  key: "key", jobId: "job_id", kind: "kind", wakeAt: "wake_at", state: "state", value: "value", data: "data", createdAt: "created_at",
  settledAt: "settled_at",
};

/** Agent fields and their columns. */
export const AGENT_COLUMNS: { readonly [K in keyof AgentValues]-?: string } = {
  role: "role", state: "state", reason: "reason", openedAt: "opened_at", failures: "failures", loopSize: "loop_size", loopAt: "loop_at",
  updatedAt: "updated_at",
};

/** The statuses of the jobs an agentic loop counts as pending (the partial index `jobs_pending_role` holds exactly them). */
export const PENDING_SQL = "status IN ('READY', 'WARMING_UP')";

/** Shared-memory fields and their columns. */
export const MEMORY_COLUMNS: { readonly [K in keyof MemoryValues]-?: string } = {
  context: "context", key: "key", category: "category", value: "value", description: "description", createdAt: "created_at", updatedAt: "updated_at",
};

/** The shared-memory entries of `contexts` in `table`, ordered by context and key (byte-wise). */
export function memorySelect(table: string, contexts: readonly string[], parameters: SqlParameters, dialect: SqlDialect): string {
  return `SELECT ${selectList(MEMORY_COLUMNS)} FROM ${table} WHERE ${dialect.oneOf("context", contexts, parameters)} ` +
    `ORDER BY ${dialect.bytewise("context")}, ${dialect.bytewise("key")}`;
}

/** Inserts a shared-memory entry into `table`, or replaces what a write may change (both engines say it alike). */
export function memoryUpsert(table: string, values: MemoryValues, parameters: SqlParameters): string {
  const { names, values: placeholders } = insertLists(MEMORY_COLUMNS, values, parameters);
  return `INSERT INTO ${table} (${names}) VALUES (${placeholders}) ON CONFLICT (context, key) DO UPDATE SET ` +
    "category = excluded.category, value = excluded.value, description = excluded.description, updated_at = excluded.updated_at";
}

/** What `lockJob` reads: the fields the rules need, none of the JSON ones. */
export const LOCKED_JOB_FIELDS = [
  "id", "role", "status", "version", "historyLength", "wakeAt", "turns", "versionsFrom", "leaseOwner", "leaseEpoch", "leaseUntil",
] as const;

/** What the claim queries read of a candidate. */
export const CLAIM_FIELDS = ["id", "role", "status", "wakeAt", "createdAt", "leaseOwner", "leaseEpoch", "leaseUntil"] as const;

/** `column AS "field", …` for the given fields (all of `columns` by default). */
export function selectList<T extends object>(columns: { readonly [K in keyof T]-?: string }, fields: readonly (keyof T & string)[] = Object.keys(columns) as (keyof T & string)[]): string {
  return fields.map((field) => (field === columns[field] ? field : `${columns[field]} AS "${field}"`)).join(", ");
}

/** `(col, …)` and `(?, …)` of an insert of every field of `columns`, adding the values of `row`. */
export function insertLists<T extends object>(columns: { readonly [K in keyof T]-?: string }, row: T, parameters: SqlParameters): { names: string; values: string } {
  const fields = Object.keys(columns) as (keyof T)[];
  return {
    names: fields.map((field) => columns[field]).join(", "),
    values: fields.map((field) => parameters.add(row[field])).join(", "),
  };
}

/** `col = ?, …` for the fields given (`undefined` ones left out), refusing a field the table does not have. */
export function assignments<T extends object>(columns: { readonly [K in keyof T]-?: string }, values: Partial<T>, parameters: SqlParameters, engine: string): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(columns, field)) throw new Error(`${engine}: no column for the field ${field}`);
    parts.push(`${columns[field as keyof T]} = ${parameters.add(value)}`);
  }
  return parts.join(", ");
}

/** ` WHERE a AND b`, or nothing for no conditions. */
export function where(conditions: readonly string[]): string {
  return conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
}

/** The conditions of a job filter: statuses, role, parent. */
export function jobConditions(query: Pick<JobQuery, "statuses" | "role" | "parentId">, parameters: SqlParameters, dialect: SqlDialect): string[] {
  const conditions: string[] = [];
  if (query.statuses !== undefined) conditions.push(dialect.oneOf("status", query.statuses, parameters));
  if (query.role !== undefined) conditions.push(`role = ${parameters.add(query.role)}`);
  if (query.parentId !== undefined) conditions.push(`parent_id = ${parameters.add(query.parentId)}`);
  return conditions;
}

/** The filters of an operator's page, each one an indexed condition. */
export function pageConditions(query: Omit<JobPageQuery, "before" | "after" | "limit">, parameters: SqlParameters, dialect: SqlDialect): string[] {
  const conditions = jobConditions(query, parameters, dialect);
  if (query.idPrefix !== undefined) {
    // The range uses the primary key; the prefix test makes it exact.
    const id = dialect.bytewise("id");
    conditions.push(`${id} >= ${parameters.add(query.idPrefix.prefix)} AND ${id} < ${parameters.add(query.idPrefix.upper)} AND ${dialect.startsWith("id", query.idPrefix.prefix, parameters)}`);
  }
  if (query.createdFrom !== undefined) conditions.push(`created_at >= ${parameters.add(query.createdFrom)}`);
  if (query.createdTo !== undefined) conditions.push(`created_at < ${parameters.add(query.createdTo)}`);
  return conditions;
}

/** A page's cursor condition (`before` a row in descending order, `after` one in ascending order) and its order. */
export function cursorOf(query: Pick<JobPageQuery, "before" | "after">, parameters: SqlParameters, dialect: SqlDialect): { conditions: string[]; order: string } {
  const id = dialect.bytewise("id");
  const conditions: string[] = [];
  for (const [cursor, compare] of [[query.before, "<"], [query.after, ">"]] as const) {
    if (cursor === undefined) continue;
    conditions.push(`(created_at ${compare} ${parameters.add(cursor.createdAt)} OR (created_at = ${parameters.add(cursor.createdAt)} AND ${id} ${compare} ${parameters.add(cursor.id)}))`);
  }
  return { conditions, order: query.after ? `created_at, ${id}` : `created_at DESC, ${id} DESC` };
}

/** ` WHERE role is one of roles`, or nothing when every role counts. */
export function rolesWhere(roles: readonly string[] | undefined, parameters: SqlParameters, dialect: SqlDialect): string {
  return roles === undefined ? "" : ` WHERE ${dialect.oneOf("role", roles, parameters)}`;
}

/** ` AND role is one of roles`, or nothing when every role counts. */
export function rolesCondition(roles: readonly string[] | undefined, parameters: SqlParameters, dialect: SqlDialect): string {
  return roles === undefined ? "" : ` AND ${dialect.oneOf("role", roles, parameters)}`;
}
