/**
 * @module
 * The SQL of the SQLite adapter: every read and write of `../store-adapter.ts` as a prepared statement on one
 * `node:sqlite` connection. No rule lives here (see `../store-rules.ts`), and what the engines build alike is in
 * `../sql-builders.ts`; the SQLite-specific parts are `ON CONFLICT … DO NOTHING` for "insert unless it exists",
 * one statement per row for multi-row writes, and the claim queries, which name the partial indexes of
 * migration 2 (`INDEXED BY`: left alone, the planner prefers `jobs_status_created_at` and sorts every active
 * job; a test checks the query plans).
 */
import type { FutureState } from "../durable-rows.ts";
import {
  AGENT_COLUMNS, PENDING_SQL, rolesWhere, CLAIM_FIELDS, FUTURE_COLUMNS, JOB_COLUMNS, LOCKED_JOB_FIELDS, SqlParameters, assignments, cursorOf, insertLists, jobConditions,
  memorySelect, memoryUpsert, pageConditions, rolesCondition, selectList, where, type SqlDialect,
} from "../sql-builders.ts";
import type {
  AdapterTransaction, AgentEventValues, AgentValues, ClaimQuery, EventRowQuery, EventValues, FutureValues, HistoryValues, JobPageQuery, JobQuery, JobValues, JournalValues,
  MemoryValues, StoredRow, VariableVersionValues,
} from "../store-adapter.ts";
import { ACTIVE_STATUSES, WAITING_STATUS } from "../store-rules.ts";
import type { VariableRow } from "../store.ts";
import type { SqliteDatabase, SqliteStatement, SqliteValue } from "./sqlite-config.ts";

/** SQLite's side of the shared builders: `?` parameters, lists for `IN`, the default (byte-wise) collation. */
export const SQLITE_DIALECT: SqlDialect = {
  name: "SQLite store",
  placeholder: () => "?",
  oneOf: (column, values, parameters) => `${column} IN (${values.map((value) => parameters.add(value)).join(", ")})`,
  bytewise: (column) => column,
  startsWith: (column, prefix, parameters) => `substr(${column}, 1, length(${parameters.add(prefix)})) = ${parameters.add(prefix)}`,
  insertionOrder: "rowid",
};

const JOB_SELECT = `SELECT ${selectList(JOB_COLUMNS)} FROM jobs`;
const LOCK_SELECT = `SELECT ${selectList(JOB_COLUMNS, LOCKED_JOB_FIELDS)} FROM jobs WHERE id = ?`;
const FUTURE_SELECT = `SELECT ${selectList(FUTURE_COLUMNS)} FROM futures`;
/** The active statuses as SQL literals: a partial index is used only when the query names its exact terms. */
const ACTIVE_SQL = ACTIVE_STATUSES.map((status) => `'${status}'`).join(", ");

/** Nobody holds a live lease at `now` (the claim queries' condition). */
const notLeased = (now: number, parameters: SqlParameters) => `(lease_owner IS NULL OR lease_until <= ${parameters.add(now)})`;
const parametersOf = () => new SqlParameters(SQLITE_DIALECT);

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
    const parameters = parametersOf();
    const conditions = jobConditions(query, parameters, SQLITE_DIALECT);
    // rowid breaks ties between jobs created in the same millisecond: the later insert is newer.
    const sql = `${JOB_SELECT}${where(conditions)} ORDER BY created_at DESC, rowid DESC LIMIT ${parameters.add(query.limit)} OFFSET ${parameters.add(query.offset)}`;
    return this.#all(sql, parameters);
  }

  async readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    const parameters = parametersOf();
    const filters = pageConditions(query, parameters, SQLITE_DIALECT);
    const cursor = cursorOf(query, parameters, SQLITE_DIALECT);
    return this.#all(`${JOB_SELECT}${where([...filters, ...cursor.conditions])} ORDER BY ${cursor.order} LIMIT ${parameters.add(query.limit)}`, parameters);
  }

  async countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    const parameters = parametersOf();
    return this.#all(`SELECT status, COUNT(*) AS count FROM jobs${where(pageConditions(query, parameters, SQLITE_DIALECT))} GROUP BY status`, parameters);
  }

  /** Runs a statement built with the shared builders. */
  #all(sql: string, parameters: SqlParameters): StoredRow[] {
    return this.#statement(sql).all(...(parameters.values as SqliteValue[]));
  }

  #run(sql: string, parameters: SqlParameters): number {
    return Number(this.#statement(sql).run(...(parameters.values as SqliteValue[])).changes);
  }

  async readLastEventId(): Promise<unknown> {
    return this.#statement("SELECT MAX(id) AS id FROM events").get()?.["id"];
  }

  async readVariables(jobId: string): Promise<StoredRow[]> {
    return this.#statement("SELECT name, blob, position FROM job_variables WHERE job_id = ? ORDER BY position, name").all(jobId);
  }

  async readVariableVersions(jobId: string, upToTurn: number): Promise<StoredRow[]> {
    return this.#statement("SELECT name, turn, position, blob FROM job_variable_versions WHERE job_id = ? AND turn <= ? ORDER BY name, turn").all(jobId, upToTurn);
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

  async readNextClaim(roles?: readonly string[]): Promise<StoredRow> {
    const now = this.#clock();
    const p = parametersOf();
    const sql = `SELECT
      (SELECT 1 FROM jobs INDEXED BY jobs_runnable WHERE status IN (${ACTIVE_SQL}) AND ${notLeased(now, p)}${rolesCondition(roles, p, SQLITE_DIALECT)} LIMIT 1) AS runnable,
      (SELECT wake_at FROM jobs INDEXED BY jobs_wake_at WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND ${notLeased(now, p)}${rolesCondition(roles, p, SQLITE_DIALECT)}
        ORDER BY wake_at LIMIT 1) AS "wakeAt",
      (SELECT MIN(lease_until) FROM jobs INDEXED BY jobs_lease_owner WHERE lease_owner IS NOT NULL AND lease_until > ${p.add(now)}${rolesCondition(roles, p, SQLITE_DIALECT)}) AS "leaseUntil"`;
    return { ...this.#all(sql, p)[0], now };
  }

  async readMemory(contexts: readonly string[]): Promise<StoredRow[]> {
    const parameters = parametersOf();
    return this.#all(memorySelect("memory", contexts, parameters, SQLITE_DIALECT), parameters);
  }

  async readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.#statement(`SELECT DISTINCT lease_owner AS "leaseOwner" FROM jobs INDEXED BY jobs_lease_owner
      WHERE lease_owner IS NOT NULL AND lease_until > ?`).all(now);
  }

  async readAgents(roles?: readonly string[]): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.#all(`SELECT ${selectList(AGENT_COLUMNS)} FROM agents${rolesWhere(roles, p, SQLITE_DIALECT)} ORDER BY role`, p);
  }

  async countAgentEvents(roles?: readonly string[]): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.#all(`SELECT role, COUNT(*) AS count FROM agent_events INDEXED BY agent_events_role${rolesWhere(roles, p, SQLITE_DIALECT)} GROUP BY role ORDER BY role`, p);
  }

  async readAgentEvents(role: string, limit: number): Promise<StoredRow[]> {
    return this.#statement("SELECT id, role, data, at FROM agent_events INDEXED BY agent_events_role WHERE role = ? ORDER BY id LIMIT ?").all(role, limit);
  }

  async lockAgent(values: AgentValues): Promise<StoredRow> {
    // No FOR UPDATE: the transaction holds SQLite's write lock from its start.
    const p = parametersOf();
    const { names, values: placeholders } = insertLists(AGENT_COLUMNS, values, p);
    this.#run(`INSERT INTO agents (${names}) VALUES (${placeholders}) ON CONFLICT (role) DO NOTHING`, p);
    return this.#statement(`SELECT ${selectList(AGENT_COLUMNS)} FROM agents WHERE role = ?`).get(values.role)!;
  }

  async updateAgent(role: string, values: Partial<Omit<AgentValues, "role">>): Promise<void> {
    const p = parametersOf();
    const set = assignments(AGENT_COLUMNS, values, p, SQLITE_DIALECT.name);
    if (set) this.#run(`UPDATE agents SET ${set} WHERE role = ${p.add(role)}`, p);
  }

  async insertAgentEvent(values: AgentEventValues): Promise<unknown> {
    return this.#statement("INSERT INTO agent_events (role, data, at) VALUES (?, ?, ?)").run(values.role, values.data, values.at).lastInsertRowid;
  }

  async deleteAgentEvents(ids: readonly number[]): Promise<void> {
    const remove = this.#statement("DELETE FROM agent_events WHERE id = ?");
    for (const id of ids) remove.run(id);
  }

  async countPendingJobs(role: string): Promise<unknown> {
    return this.#statement(`SELECT COUNT(*) AS count FROM jobs INDEXED BY jobs_pending_role WHERE role = ? AND ${PENDING_SQL}`).get(role)?.["count"];
  }

  async lockJob(id: string): Promise<StoredRow | undefined> {
    // No FOR UPDATE: the transaction holds SQLite's write lock from its start.
    return this.#statement(LOCK_SELECT).get(id);
  }

  async insertJob(values: JobValues): Promise<boolean> {
    const parameters = parametersOf();
    const { names, values: placeholders } = insertLists(JOB_COLUMNS, values, parameters);
    return this.#run(`INSERT INTO jobs (${names}) VALUES (${placeholders}) ON CONFLICT (id) DO NOTHING`, parameters) === 1;
  }

  async updateJob(id: string, values: Partial<Omit<JobValues, "id">>): Promise<void> {
    const parameters = parametersOf();
    const set = assignments(JOB_COLUMNS, values, parameters, SQLITE_DIALECT.name);
    if (set) this.#run(`UPDATE jobs SET ${set} WHERE id = ${parameters.add(id)}`, parameters);
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

  async putVariableVersions(jobId: string, versions: readonly VariableVersionValues[]): Promise<void> {
    const put = this.#statement(
      `INSERT INTO job_variable_versions (job_id, name, turn, position, blob) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (job_id, name, turn) DO UPDATE SET position = excluded.position, blob = excluded.blob`,
    );
    for (const version of versions) put.run(jobId, version.name, version.turn, version.position, version.blob);
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
    const parameters = parametersOf();
    const { names, values: placeholders } = insertLists(FUTURE_COLUMNS, values, parameters);
    return this.#run(`INSERT INTO futures (${names}) VALUES (${placeholders}) ON CONFLICT (key) DO NOTHING`, parameters) === 1;
  }

  async updateFuture(key: string, values: Partial<Omit<FutureValues, "key">>): Promise<void> {
    const parameters = parametersOf();
    const set = assignments(FUTURE_COLUMNS, values, parameters, SQLITE_DIALECT.name);
    if (set) this.#run(`UPDATE futures SET ${set} WHERE key = ${parameters.add(key)}`, parameters);
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

  async upsertMemory(values: MemoryValues): Promise<void> {
    const parameters = parametersOf();
    this.#run(memoryUpsert("memory", values, parameters), parameters);
  }

  async deleteMemory(context: string, key: string): Promise<boolean> {
    return Number(this.#statement("DELETE FROM memory WHERE context = ? AND key = ?").run(context, key).changes) === 1;
  }

  async expireLeasesOf(owner: string, now: number): Promise<number> {
    const result = this.#statement("UPDATE jobs INDEXED BY jobs_lease_owner SET lease_until = ? WHERE lease_owner = ? AND lease_until > ?").run(now, owner, now);
    return Number(result.changes);
  }

  async selectClaimable(query: ClaimQuery & { limit: number }): Promise<StoredRow[]> {
    const columns = selectList(JOB_COLUMNS, CLAIM_FIELDS);
    const a = parametersOf();
    const active = this.#all(`SELECT ${columns} FROM jobs INDEXED BY jobs_runnable WHERE status IN (${ACTIVE_SQL}) AND ${notLeased(query.now, a)}
      ${rolesCondition(query.roles, a, SQLITE_DIALECT)} ORDER BY created_at, rowid LIMIT ${a.add(query.limit)}`, a);
    const w = parametersOf();
    const woken = this.#all(`SELECT ${columns} FROM jobs INDEXED BY jobs_wake_at WHERE status = '${WAITING_STATUS}' AND wake_at <= ${w.add(query.now)}
      AND ${notLeased(query.now, w)}${rolesCondition(query.roles, w, SQLITE_DIALECT)} ORDER BY wake_at, rowid LIMIT ${w.add(query.limit)}`, w);
    return [...active, ...woken];
  }
}
