/**
 * @module
 * The SQL of the SQLite adapter: every read and write of `../store-adapter.ts` as a prepared statement on one
 * `node:sqlite` connection. No rule lives here (see `../store-rules.ts`); the SQLite-specific parts are the
 * column names, `ON CONFLICT … DO NOTHING` for "insert unless it exists", and the claim queries, which name the
 * partial indexes of migration 2 (`INDEXED BY`: left alone, the planner prefers `jobs_status_created_at` and
 * sorts every active job; a test checks the query plans).
 */
import type { FutureState } from "../durable-rows.ts";
import type {
  AdapterTransaction, ClaimQuery, EventRowQuery, EventValues, FutureValues, HistoryValues, JobPageQuery, JobQuery, JobValues, JournalValues, StoredRow,
} from "../store-adapter.ts";
import { ACTIVE_STATUSES, WAITING_STATUS } from "../store-rules.ts";
import type { VariableRow } from "../store.ts";
import type { SqliteDatabase, SqliteStatement, SqliteValue } from "./sqlite-config.ts";

/** Job fields and their columns. */
const JOB_COLUMNS: { readonly [K in keyof JobValues]-?: string } = {
  id: "id", role: "role", status: "status", params: "params", metadata: "metadata", parentId: "parent_id", createdAt: "created_at",
  updatedAt: "updated_at", version: "version", turns: "turns", pendingSeq: "pending_seq", historyLength: "history_length",
  exitStatus: "exit_status", error: "error", usage: "usage", state: "state", wakeAt: "wake_at", cell: "cell", leaseOwner: "lease_owner",
  leaseEpoch: "lease_epoch", leaseUntil: "lease_until",
};

/** Future fields and their columns. */
const FUTURE_COLUMNS: { readonly [K in keyof FutureValues]-?: string } = {
  key: "key", jobId: "job_id", kind: "kind", wakeAt: "wake_at", state: "state", value: "value", data: "data", createdAt: "created_at",
  settledAt: "settled_at",
};

const selectList = (columns: Readonly<Record<string, string>>) =>
  Object.entries(columns).map(([field, column]) => (field === column ? column : `${column} AS "${field}"`)).join(", ");

const JOB_SELECT = `SELECT ${selectList(JOB_COLUMNS)} FROM jobs`;
/** What `lockJob` reads: the fields the rules need, none of the JSON ones. */
const LOCK_SELECT = `SELECT ${selectList(Object.fromEntries(
  (["id", "status", "version", "historyLength", "wakeAt", "leaseOwner", "leaseEpoch", "leaseUntil"] as const).map((field) => [field, JOB_COLUMNS[field]]),
))} FROM jobs WHERE id = ?`;
const FUTURE_SELECT = `SELECT ${selectList(FUTURE_COLUMNS)} FROM futures`;
/** The claim queries' lease condition: nobody holds a live lease at `?` (now). */
const NOT_LEASED = "(lease_owner IS NULL OR lease_until <= ?)";
/** The active statuses as SQL literals: a partial index is used only when the query names its exact terms. */
const ACTIVE_SQL = ACTIVE_STATUSES.map((status) => `'${status}'`).join(", ");

const placeholders = (count: number) => Array(count).fill("?").join(", ");

/** Every query, on one connection, with prepared statements cached by their SQL. */
export class SqliteQueries implements AdapterTransaction {
  readonly #database: SqliteDatabase;
  readonly #clock: () => number;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(database: SqliteDatabase, clock: () => number) {
    this.#database = database;
    this.#clock = clock;
  }

  /** Forgets the prepared statements (before the connection closes). */
  clear(): void {
    this.#statements.clear();
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async savepoint<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
    this.#database.exec("SAVEPOINT statek_write");
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await work() };
    } catch (error) {
      outcome = { ok: false, error };
      this.#database.exec("ROLLBACK TO statek_write");
    }
    this.#database.exec("RELEASE statek_write");
    return outcome;
  }

  async now(): Promise<number> {
    return this.#clock();
  }

  /** `PRAGMA data_version`: changes when another connection commits to the file. */
  async dataVersion(): Promise<number> {
    return Number(this.#statement("PRAGMA data_version").get()?.["data_version"]);
  }

  async readJob(id: string): Promise<StoredRow | undefined> {
    return this.#statement(`${JOB_SELECT} WHERE id = ?`).get(id);
  }

  async readJobs(query: JobQuery): Promise<StoredRow[]> {
    const where: string[] = [];
    const parameters: SqliteValue[] = [];
    if (query.statuses !== undefined) {
      where.push(`status IN (${placeholders(query.statuses.length)})`);
      parameters.push(...query.statuses);
    }
    if (query.role !== undefined) {
      where.push("role = ?");
      parameters.push(query.role);
    }
    if (query.parentId !== undefined) {
      where.push("parent_id = ?");
      parameters.push(query.parentId);
    }
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    // rowid breaks ties between jobs created in the same millisecond: the later insert is newer.
    return this.#statement(`${JOB_SELECT}${condition} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`).all(...parameters, query.limit, query.offset);
  }

  async readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    const [where, parameters] = pageConditions(query);
    if (query.before) {
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      parameters.push(query.before.createdAt, query.before.createdAt, query.before.id);
    }
    if (query.after) {
      where.push("(created_at > ? OR (created_at = ? AND id > ?))");
      parameters.push(query.after.createdAt, query.after.createdAt, query.after.id);
    }
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    const order = query.after ? "created_at, id" : "created_at DESC, id DESC";
    return this.#statement(`${JOB_SELECT}${condition} ORDER BY ${order} LIMIT ?`).all(...parameters, query.limit);
  }

  async countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    const [where, parameters] = pageConditions(query);
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    return this.#statement(`SELECT status, COUNT(*) AS count FROM jobs${condition} GROUP BY status`).all(...parameters);
  }

  async readLastEventId(): Promise<unknown> {
    return this.#statement("SELECT MAX(id) AS id FROM events").get()?.["id"];
  }

  async readVariables(jobId: string): Promise<StoredRow[]> {
    return this.#statement("SELECT name, blob, position FROM job_variables WHERE job_id = ? ORDER BY position, name").all(jobId);
  }

  async readHistory(jobId: string, fromSeq: number): Promise<StoredRow[]> {
    return this.#statement("SELECT seq, kind, at, data FROM job_history WHERE job_id = ? AND seq >= ? ORDER BY seq").all(jobId, fromSeq);
  }

  async readJournal(jobId: string): Promise<StoredRow[]> {
    return this.#statement('SELECT cell, idx AS "index", data FROM journal WHERE job_id = ? ORDER BY idx').all(jobId);
  }

  async readFuture(key: string): Promise<StoredRow | undefined> {
    return this.#statement(`${FUTURE_SELECT} WHERE key = ?`).get(key);
  }

  async readFutures(jobId: string, state?: FutureState): Promise<StoredRow[]> {
    if (state === undefined) return this.#statement(`${FUTURE_SELECT} WHERE job_id = ? ORDER BY created_at, key`).all(jobId);
    return this.#statement(`${FUTURE_SELECT} WHERE job_id = ? AND state = ? ORDER BY created_at, key`).all(jobId, state);
  }

  async readWaitingFutures(kind: string, limit: number): Promise<StoredRow[]> {
    // The partial index of migration 3 holds only waiting futures.
    return this.#statement(`${FUTURE_SELECT} INDEXED BY futures_waiting_kind WHERE state = 'waiting' AND kind = ? ORDER BY created_at, key LIMIT ?`).all(kind, limit);
  }

  async readEvents(query: EventRowQuery): Promise<StoredRow[]> {
    const select = 'SELECT id, job_id AS "jobId", kind, at, data FROM events';
    if (query.jobId === undefined) return this.#statement(`${select} WHERE id > ? ORDER BY id LIMIT ?`).all(query.afterId, query.limit);
    return this.#statement(`${select} WHERE job_id = ? AND id > ? ORDER BY id LIMIT ?`).all(query.jobId, query.afterId, query.limit);
  }

  async readNextWakeAt(query: ClaimQuery): Promise<unknown> {
    const [roles, parameters] = rolesCondition(query.roles);
    const sql = `SELECT wake_at AS "wakeAt" FROM jobs INDEXED BY jobs_wake_at WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND ${NOT_LEASED}${roles}
      ORDER BY wake_at LIMIT 1`;
    return this.#statement(sql).get(query.now, ...parameters)?.["wakeAt"];
  }

  async readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.#statement(`SELECT DISTINCT lease_owner AS "leaseOwner" FROM jobs INDEXED BY jobs_lease_owner
      WHERE lease_owner IS NOT NULL AND lease_until > ?`).all(now);
  }

  async readDataVersion(): Promise<unknown> {
    return this.#statement("PRAGMA data_version").get()?.["data_version"];
  }

  async lockJob(id: string): Promise<StoredRow | undefined> {
    // No FOR UPDATE: the transaction holds SQLite's write lock from its start.
    return this.#statement(LOCK_SELECT).get(id);
  }

  async insertJob(values: JobValues): Promise<boolean> {
    const fields = Object.keys(JOB_COLUMNS) as Array<keyof JobValues>;
    const sql = `INSERT INTO jobs (${fields.map((field) => JOB_COLUMNS[field]).join(", ")}) VALUES (${placeholders(fields.length)})
      ON CONFLICT (id) DO NOTHING`;
    return Number(this.#statement(sql).run(...fields.map((field) => values[field])).changes) === 1;
  }

  async updateJob(id: string, values: Partial<Omit<JobValues, "id">>): Promise<void> {
    const [assignments, parameters] = assignmentsOf(JOB_COLUMNS, values);
    if (assignments) this.#statement(`UPDATE jobs SET ${assignments} WHERE id = ?`).run(...parameters, id);
  }

  async putVariables(jobId: string, variables: readonly VariableRow[]): Promise<void> {
    const put = this.#statement(
      `INSERT INTO job_variables (job_id, name, blob, position) VALUES (?, ?, ?, ?)
        ON CONFLICT (job_id, name) DO UPDATE SET blob = excluded.blob, position = excluded.position`,
    );
    for (const variable of variables) put.run(jobId, variable.name, variable.blob, variable.position);
  }

  async deleteVariables(jobId: string, names: readonly string[]): Promise<void> {
    const remove = this.#statement("DELETE FROM job_variables WHERE job_id = ? AND name = ?");
    for (const name of names) remove.run(jobId, name);
  }

  async insertHistory(jobId: string, records: readonly HistoryValues[]): Promise<void> {
    const append = this.#statement("INSERT INTO job_history (job_id, seq, kind, at, data) VALUES (?, ?, ?, ?, ?)");
    for (const record of records) append.run(jobId, record.seq, record.kind, record.at, record.data);
  }

  async journalEnds(jobId: string): Promise<StoredRow | undefined> {
    const sql = `SELECT f.idx AS "firstIndex", f.cell AS "firstCell", l.idx AS "lastIndex", l.cell AS "lastCell"
      FROM (SELECT idx, cell FROM journal WHERE job_id = ? ORDER BY idx ASC LIMIT 1) AS f,
        (SELECT idx, cell FROM journal WHERE job_id = ? ORDER BY idx DESC LIMIT 1) AS l`;
    return this.#statement(sql).get(jobId, jobId);
  }

  async insertJournal(jobId: string, cell: number, entries: readonly JournalValues[]): Promise<void> {
    const append = this.#statement("INSERT INTO journal (job_id, cell, idx, data) VALUES (?, ?, ?, ?)");
    for (const entry of entries) append.run(jobId, cell, entry.index, entry.data);
  }

  async deleteJournal(jobId: string): Promise<void> {
    this.#statement("DELETE FROM journal WHERE job_id = ?").run(jobId);
  }

  async lockFuture(key: string): Promise<StoredRow | undefined> {
    return this.readFuture(key);
  }

  async insertFuture(values: FutureValues): Promise<boolean> {
    const fields = Object.keys(FUTURE_COLUMNS) as Array<keyof FutureValues>;
    const sql = `INSERT INTO futures (${fields.map((field) => FUTURE_COLUMNS[field]).join(", ")}) VALUES (${placeholders(fields.length)})
      ON CONFLICT (key) DO NOTHING`;
    return Number(this.#statement(sql).run(...fields.map((field) => values[field])).changes) === 1;
  }

  async updateFuture(key: string, values: Partial<Omit<FutureValues, "key">>): Promise<void> {
    const [assignments, parameters] = assignmentsOf(FUTURE_COLUMNS, values);
    if (assignments) this.#statement(`UPDATE futures SET ${assignments} WHERE key = ?`).run(...parameters, key);
  }

  async settleWaitingFutures(jobId: string, values: Pick<FutureValues, "state" | "value" | "settledAt">): Promise<void> {
    this.#statement("UPDATE futures SET state = ?, value = ?, settled_at = ? WHERE job_id = ? AND state = 'waiting'")
      .run(values.state, values.value, values.settledAt, jobId);
  }

  async insertEvents(events: readonly EventValues[]): Promise<void> {
    const append = this.#statement("INSERT INTO events (job_id, kind, at, data) VALUES (?, ?, ?, ?)");
    for (const event of events) append.run(event.jobId, event.kind, event.at, event.data);
  }

  async deleteEventsBefore(before: number, limit: number): Promise<number> {
    const result = this.#statement("DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?) AND at < ?").run(limit, before);
    return Number(result.changes);
  }

  async expireLeasesOf(owner: string, now: number): Promise<number> {
    const result = this.#statement("UPDATE jobs INDEXED BY jobs_lease_owner SET lease_until = ? WHERE lease_owner = ? AND lease_until > ?").run(now, owner, now);
    return Number(result.changes);
  }

  async selectClaimable(query: ClaimQuery & { limit: number }): Promise<StoredRow[]> {
    const [roles, parameters] = rolesCondition(query.roles);
    const columns = `id, role, status, wake_at AS "wakeAt", created_at AS "createdAt", lease_owner AS "leaseOwner", lease_epoch AS "leaseEpoch",
      lease_until AS "leaseUntil"`;
    const active = this.#statement(`SELECT ${columns} FROM jobs INDEXED BY jobs_runnable WHERE status IN (${ACTIVE_SQL}) AND ${NOT_LEASED}${roles}
      ORDER BY created_at, rowid LIMIT ?`).all(query.now, ...parameters, query.limit);
    const woken = this.#statement(`SELECT ${columns} FROM jobs INDEXED BY jobs_wake_at WHERE status = '${WAITING_STATUS}' AND wake_at <= ? AND ${NOT_LEASED}${roles}
      ORDER BY wake_at, rowid LIMIT ?`).all(query.now, query.now, ...parameters, query.limit);
    return [...active, ...woken];
  }
}

/** The filters of an operator's page, each one an indexed condition. */
function pageConditions(query: Omit<JobPageQuery, "before" | "after" | "limit">): [string[], SqliteValue[]] {
  const where: string[] = [];
  const parameters: SqliteValue[] = [];
  if (query.statuses !== undefined) {
    where.push(`status IN (${placeholders(query.statuses.length)})`);
    parameters.push(...query.statuses);
  }
  if (query.role !== undefined) {
    where.push("role = ?");
    parameters.push(query.role);
  }
  if (query.parentId !== undefined) {
    where.push("parent_id = ?");
    parameters.push(query.parentId);
  }
  if (query.idPrefix !== undefined) {
    // The range uses the primary key; the substr check makes it exact.
    where.push("id >= ? AND id < ? AND substr(id, 1, length(?)) = ?");
    parameters.push(query.idPrefix.prefix, query.idPrefix.upper, query.idPrefix.prefix, query.idPrefix.prefix);
  }
  if (query.createdFrom !== undefined) {
    where.push("created_at >= ?");
    parameters.push(query.createdFrom);
  }
  if (query.createdTo !== undefined) {
    where.push("created_at < ?");
    parameters.push(query.createdTo);
  }
  return [where, parameters];
}

function rolesCondition(roles: readonly string[] | undefined): [string, SqliteValue[]] {
  return roles === undefined ? ["", []] : [` AND role IN (${placeholders(roles.length)})`, [...roles]];
}

/** `col = ?, …` for the fields given, refusing a field the table does not have. */
function assignmentsOf<T extends object>(columns: { readonly [K in keyof T]-?: string }, values: Partial<T>): [string, SqliteValue[]] {
  const assignments: string[] = [];
  const parameters: SqliteValue[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(columns, field)) throw new Error(`SQLite store: no column for the field ${field}`);
    assignments.push(`${columns[field as keyof T]} = ?`);
    parameters.push(value as SqliteValue);
  }
  return [assignments.join(", "), parameters];
}
