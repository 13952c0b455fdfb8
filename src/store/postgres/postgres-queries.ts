/**
 * @module
 * The SQL of the PostgreSQL adapter: every read and write of `../store-adapter.ts` on a `pg` connection or pool,
 * as named prepared statements. No rule lives here (see `../store-rules.ts`). The PostgreSQL-specific parts:
 * `FOR UPDATE` on the rows a transaction's rules read, `FOR UPDATE SKIP LOCKED` in the claim queries (served by
 * the partial indexes of migration 1), the database's clock, arrays (`unnest`, `= ANY`) for multi-row writes,
 * and the outbox's ids handed out in commit order (see {@link PostgresTransaction}).
 */
import type { FutureState } from "../durable-rows.ts";
import type {
  AdapterReads, AdapterTransaction, ClaimQuery, EventRowQuery, EventValues, FutureValues, HistoryValues, JobPageQuery, JobQuery, JobValues, JournalValues, StoredRow,
} from "../store-adapter.ts";
import { readInteger } from "../store-rows.ts";
import { ACTIVE_STATUSES, WAITING_STATUS } from "../store-rules.ts";
import type { VariableRow } from "../store.ts";

/** The slice of `pg`'s `Pool` and `PoolClient` the queries call: one query, its rows and count. */
export interface PostgresQueryable {
  query(query: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<{ rows: StoredRow[]; rowCount: number | null }>;
}

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

/** The database's clock in epoch milliseconds (wall time now, not the transaction's start). */
export const CLOCK_SQL = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
/** The claim queries' lease condition: nobody holds a live lease at `$1` (now). */
const NOT_LEASED = "(lease_owner IS NULL OR lease_until <= $1)";
/** The active statuses as SQL literals: the partial index is used only when the query names its exact terms. */
const ACTIVE_SQL = ACTIVE_STATUSES.map((status) => `'${status}'`).join(", ");
/** The advisory lock that hands out event ids in commit order (a constant of ours; the schema's hash second). */
export const EVENTS_LOCK_CLASS = 0x5354_4b45; // "STKE"

/** The SQL texts of one schema, each with the name it is prepared under on every connection. */
export class PostgresStatements {
  readonly schema: string;
  readonly #quoted: string;
  readonly #names = new Map<string, string>();

  constructor(schema: string) {
    this.schema = schema;
    this.#quoted = `"${schema}"`;
  }

  /** A table of the schema, qualified and quoted. */
  table(name: string): string {
    return `${this.#quoted}.${name}`;
  }

  /** A prepared query: the same text gets the same name, so each connection parses it once. */
  query(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
    let name = this.#names.get(text);
    if (name === undefined) {
      name = `statek_${this.#names.size}`; // a store has its own pool: names never meet another schema's
      this.#names.set(text, name);
    }
    return { name, text, values };
  }
}

/** Reads, on the pool (outside a transaction) or on a transaction's connection. */
export class PostgresReads implements AdapterReads {
  protected readonly db: PostgresQueryable;
  protected readonly sql: PostgresStatements;

  constructor(db: PostgresQueryable, sql: PostgresStatements) {
    this.db = db;
    this.sql = sql;
  }

  protected async rows(text: string, values: unknown[] = []): Promise<StoredRow[]> {
    return (await this.db.query(this.sql.query(text, values))).rows;
  }

  protected async run(text: string, values: unknown[] = []): Promise<number> {
    return (await this.db.query(this.sql.query(text, values))).rowCount ?? 0;
  }

  async now(): Promise<number> {
    const [row] = await this.rows(`SELECT ${CLOCK_SQL} AS now`);
    return readInteger(row?.["now"]);
  }

  protected get jobSelect(): string {
    return `SELECT ${selectList(JOB_COLUMNS)} FROM ${this.sql.table("jobs")}`;
  }

  protected get futureSelect(): string {
    return `SELECT ${selectList(FUTURE_COLUMNS)} FROM ${this.sql.table("futures")}`;
  }

  async readJob(id: string): Promise<StoredRow | undefined> {
    return (await this.rows(`${this.jobSelect} WHERE id = $1`, [id]))[0];
  }

  async readJobs(query: JobQuery): Promise<StoredRow[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (query.statuses !== undefined) where.push(`status = ANY($${values.push([...query.statuses])}::text[])`);
    if (query.role !== undefined) where.push(`role = $${values.push(query.role)}`);
    if (query.parentId !== undefined) where.push(`parent_id = $${values.push(query.parentId)}`);
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    const limit = `$${values.push(query.limit)}`;
    const offset = `$${values.push(query.offset)}`;
    return this.rows(`${this.jobSelect}${condition} ORDER BY created_at DESC, row_order DESC LIMIT ${limit} OFFSET ${offset}`, values);
  }

  async readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    const [where, values] = pageConditions(query);
    // Ids compare bytewise (COLLATE "C"), as SQLite compares them, so a cursor means the same on both stores.
    if (query.before) {
      const at = `$${values.push(query.before.createdAt)}`;
      where.push(`(created_at < ${at} OR (created_at = ${at} AND id COLLATE "C" < $${values.push(query.before.id)}))`);
    }
    if (query.after) {
      const at = `$${values.push(query.after.createdAt)}`;
      where.push(`(created_at > ${at} OR (created_at = ${at} AND id COLLATE "C" > $${values.push(query.after.id)}))`);
    }
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    const order = query.after ? `created_at, id COLLATE "C"` : `created_at DESC, id COLLATE "C" DESC`;
    return this.rows(`${this.jobSelect}${condition} ORDER BY ${order} LIMIT $${values.push(query.limit)}`, values);
  }

  async countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    const [where, values] = pageConditions(query);
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    return this.rows(`SELECT status, COUNT(*)::integer AS count FROM ${this.sql.table("jobs")}${condition} GROUP BY status`, values);
  }

  async readLastEventId(): Promise<unknown> {
    return (await this.rows(`SELECT MAX(id) AS id FROM ${this.sql.table("events")}`, []))[0]?.["id"];
  }

  async readVariables(jobId: string): Promise<StoredRow[]> {
    return this.rows(`SELECT name, blob, position FROM ${this.sql.table("job_variables")} WHERE job_id = $1 ORDER BY position, name COLLATE "C"`, [jobId]);
  }

  async readHistory(jobId: string, fromSeq: number): Promise<StoredRow[]> {
    return this.rows(`SELECT seq, kind, at, data FROM ${this.sql.table("job_history")} WHERE job_id = $1 AND seq >= $2 ORDER BY seq`, [jobId, fromSeq]);
  }

  async readJournal(jobId: string): Promise<StoredRow[]> {
    return this.rows(`SELECT cell, idx AS "index", data FROM ${this.sql.table("journal")} WHERE job_id = $1 ORDER BY idx`, [jobId]);
  }

  async readFuture(key: string): Promise<StoredRow | undefined> {
    return (await this.rows(`${this.futureSelect} WHERE key = $1`, [key]))[0];
  }

  async readFutures(jobId: string, state?: FutureState): Promise<StoredRow[]> {
    if (state === undefined) return this.rows(`${this.futureSelect} WHERE job_id = $1 ORDER BY created_at, key COLLATE "C"`, [jobId]);
    return this.rows(`${this.futureSelect} WHERE job_id = $1 AND state = $2 ORDER BY created_at, key COLLATE "C"`, [jobId, state]);
  }

  async readWaitingFutures(kind: string, limit: number): Promise<StoredRow[]> {
    return this.rows(`${this.futureSelect} WHERE state = 'waiting' AND kind = $1 ORDER BY created_at, key COLLATE "C" LIMIT $2`, [kind, limit]);
  }

  async readEvents(query: EventRowQuery): Promise<StoredRow[]> {
    const select = `SELECT id, job_id AS "jobId", kind, at, data FROM ${this.sql.table("events")}`;
    if (query.jobId === undefined) return this.rows(`${select} WHERE id > $1 ORDER BY id LIMIT $2`, [query.afterId, query.limit]);
    return this.rows(`${select} WHERE job_id = $1 AND id > $2 ORDER BY id LIMIT $3`, [query.jobId, query.afterId, query.limit]);
  }

  async readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.rows(`SELECT DISTINCT lease_owner AS "leaseOwner" FROM ${this.sql.table("jobs")} WHERE lease_owner IS NOT NULL AND lease_until > $1`, [now]);
  }

  async readNextWakeAt(query: ClaimQuery): Promise<unknown> {
    const roles = query.roles === undefined ? "" : " AND role = ANY($2::text[])";
    const sql = `SELECT wake_at AS "wakeAt" FROM ${this.sql.table("jobs")} WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND ${NOT_LEASED}${roles}
      ORDER BY wake_at LIMIT 1`;
    return (await this.rows(sql, query.roles === undefined ? [query.now] : [query.now, [...query.roles]]))[0]?.["wakeAt"];
  }
}

/**
 * One transaction on one connection. Its clock is read once, at `BEGIN`: every write of the transaction is
 * stamped with the same time. Events are not inserted where they are written but just before `COMMIT`, under a
 * transaction-level advisory lock held until the commit is visible: so ids are handed out in commit order, and
 * a reader that has seen id n never misses an id below it committed later. Writes undone by a savepoint take
 * their events with them.
 */
export class PostgresTransaction extends PostgresReads implements AdapterTransaction {
  readonly #now: number;
  #events: EventValues[] = [];
  /** True while the savepoint of the last successful write is still open (the next write releases it). */
  #savepointOpen = false;

  constructor(db: PostgresQueryable, sql: PostgresStatements, now: number) {
    super(db, sql);
    this.#now = now;
  }

  override async now(): Promise<number> {
    return this.#now;
  }

  async savepoint<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
    // One round trip per write: the previous write's savepoint is released with the next one's creation.
    await this.db.query(this.#savepointOpen ? "RELEASE SAVEPOINT statek_write; SAVEPOINT statek_write" : "SAVEPOINT statek_write");
    this.#savepointOpen = true;
    const events = this.#events.length;
    try {
      return { ok: true, value: await work() };
    } catch (error) {
      await this.db.query("ROLLBACK TO SAVEPOINT statek_write; RELEASE SAVEPOINT statek_write");
      this.#savepointOpen = false;
      this.#events.length = events;
      return { ok: false, error };
    }
  }

  /** Inserts the events written in this transaction, in order, under the lock that orders event ids. */
  async flushEvents(): Promise<void> {
    if (this.#events.length === 0) return;
    const events = this.#events;
    this.#events = [];
    await this.run("SELECT pg_advisory_xact_lock($1, hashtext($2))", [EVENTS_LOCK_CLASS, this.sql.schema]);
    await this.run(
      `INSERT INTO ${this.sql.table("events")} (job_id, kind, at, data)
        SELECT job_id, kind, at, data FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) WITH ORDINALITY AS e (job_id, kind, at, data, n) ORDER BY n`,
      [events.map((event) => event.jobId), events.map((event) => event.kind), events.map((event) => event.at), events.map((event) => event.data)],
    );
  }

  async lockJob(id: string): Promise<StoredRow | undefined> {
    const fields = ["id", "status", "version", "historyLength", "wakeAt", "leaseOwner", "leaseEpoch", "leaseUntil"] as const;
    const columns = selectList(Object.fromEntries(fields.map((field) => [field, JOB_COLUMNS[field]])));
    return (await this.rows(`SELECT ${columns} FROM ${this.sql.table("jobs")} WHERE id = $1 FOR UPDATE`, [id]))[0];
  }

  async insertJob(values: JobValues): Promise<boolean> {
    const fields = Object.keys(JOB_COLUMNS) as Array<keyof JobValues>;
    const sql = `INSERT INTO ${this.sql.table("jobs")} (${fields.map((field) => JOB_COLUMNS[field]).join(", ")})
      VALUES (${fields.map((_, index) => `$${index + 1}`).join(", ")}) ON CONFLICT (id) DO NOTHING`;
    return (await this.run(sql, fields.map((field) => values[field]))) === 1;
  }

  async updateJob(id: string, values: Partial<Omit<JobValues, "id">>): Promise<void> {
    const [assignments, parameters] = assignmentsOf(JOB_COLUMNS, values);
    if (assignments) await this.run(`UPDATE ${this.sql.table("jobs")} SET ${assignments} WHERE id = $${parameters.length + 1}`, [...parameters, id]);
  }

  async putVariables(jobId: string, variables: readonly VariableRow[]): Promise<void> {
    if (variables.length === 0) return;
    await this.run(
      `INSERT INTO ${this.sql.table("job_variables")} (job_id, name, blob, position)
        SELECT $1, name, blob, position FROM unnest($2::text[], $3::text[], $4::bigint[]) AS v (name, blob, position)
        ON CONFLICT (job_id, name) DO UPDATE SET blob = excluded.blob, position = excluded.position`,
      [jobId, variables.map((variable) => variable.name), variables.map((variable) => variable.blob), variables.map((variable) => variable.position)],
    );
  }

  async deleteVariables(jobId: string, names: readonly string[]): Promise<void> {
    if (names.length) await this.run(`DELETE FROM ${this.sql.table("job_variables")} WHERE job_id = $1 AND name = ANY($2::text[])`, [jobId, [...names]]);
  }

  async insertHistory(jobId: string, records: readonly HistoryValues[]): Promise<void> {
    if (records.length === 0) return;
    await this.run(
      `INSERT INTO ${this.sql.table("job_history")} (job_id, seq, kind, at, data)
        SELECT $1, seq, kind, at, data FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[]) AS h (seq, kind, at, data)`,
      [jobId, records.map((record) => record.seq), records.map((record) => record.kind), records.map((record) => record.at), records.map((record) => record.data)],
    );
  }

  async journalEnds(jobId: string): Promise<StoredRow | undefined> {
    const journal = this.sql.table("journal");
    const sql = `SELECT f.idx AS "firstIndex", f.cell AS "firstCell", l.idx AS "lastIndex", l.cell AS "lastCell"
      FROM (SELECT idx, cell FROM ${journal} WHERE job_id = $1 ORDER BY idx ASC LIMIT 1) AS f,
        (SELECT idx, cell FROM ${journal} WHERE job_id = $1 ORDER BY idx DESC LIMIT 1) AS l`;
    return (await this.rows(sql, [jobId]))[0];
  }

  async insertJournal(jobId: string, cell: number, entries: readonly JournalValues[]): Promise<void> {
    if (entries.length === 0) return;
    await this.run(
      `INSERT INTO ${this.sql.table("journal")} (job_id, cell, idx, data)
        SELECT $1, $2, idx, data FROM unnest($3::bigint[], $4::text[]) AS j (idx, data)`,
      [jobId, cell, entries.map((entry) => entry.index), entries.map((entry) => entry.data)],
    );
  }

  async deleteJournal(jobId: string): Promise<void> {
    await this.run(`DELETE FROM ${this.sql.table("journal")} WHERE job_id = $1`, [jobId]);
  }

  async lockFuture(key: string): Promise<StoredRow | undefined> {
    return (await this.rows(`${this.futureSelect} WHERE key = $1 FOR UPDATE`, [key]))[0];
  }

  async insertFuture(values: FutureValues): Promise<boolean> {
    const fields = Object.keys(FUTURE_COLUMNS) as Array<keyof FutureValues>;
    const sql = `INSERT INTO ${this.sql.table("futures")} (${fields.map((field) => FUTURE_COLUMNS[field]).join(", ")})
      VALUES (${fields.map((_, index) => `$${index + 1}`).join(", ")}) ON CONFLICT (key) DO NOTHING`;
    return (await this.run(sql, fields.map((field) => values[field]))) === 1;
  }

  async updateFuture(key: string, values: Partial<Omit<FutureValues, "key">>): Promise<void> {
    const [assignments, parameters] = assignmentsOf(FUTURE_COLUMNS, values);
    if (assignments) await this.run(`UPDATE ${this.sql.table("futures")} SET ${assignments} WHERE key = $${parameters.length + 1}`, [...parameters, key]);
  }

  async settleWaitingFutures(jobId: string, values: Pick<FutureValues, "state" | "value" | "settledAt">): Promise<void> {
    await this.run(
      `UPDATE ${this.sql.table("futures")} SET state = $1, value = $2, settled_at = $3 WHERE job_id = $4 AND state = 'waiting'`,
      [values.state, values.value, values.settledAt, jobId],
    );
  }

  async insertEvents(events: readonly EventValues[]): Promise<void> {
    this.#events.push(...events);
  }

  async deleteEventsBefore(before: number, limit: number): Promise<number> {
    const events = this.sql.table("events");
    const deleted = await this.rows(`WITH oldest AS (SELECT id FROM ${events} ORDER BY id LIMIT $1)
      DELETE FROM ${events} WHERE id IN (SELECT id FROM oldest) AND at < $2 RETURNING id`, [limit, before]);
    return deleted.length;
  }

  async expireLeasesOf(owner: string, now: number): Promise<number> {
    const expired = await this.rows(`UPDATE ${this.sql.table("jobs")} SET lease_until = $1 WHERE lease_owner = $2 AND lease_until > $1 RETURNING id`, [now, owner]);
    return expired.length;
  }

  async selectClaimable(query: ClaimQuery & { limit: number }): Promise<StoredRow[]> {
    const roles = query.roles === undefined ? "" : " AND role = ANY($3::text[])";
    const values = query.roles === undefined ? [query.now, query.limit] : [query.now, query.limit, [...query.roles]];
    const columns = `id, role, status, wake_at AS "wakeAt", created_at AS "createdAt", lease_owner AS "leaseOwner", lease_epoch AS "leaseEpoch",
      lease_until AS "leaseUntil"`;
    const jobs = this.sql.table("jobs");
    const active = await this.rows(`SELECT ${columns} FROM ${jobs} WHERE status IN (${ACTIVE_SQL}) AND ${NOT_LEASED}${roles}
      ORDER BY created_at, row_order LIMIT $2 FOR UPDATE SKIP LOCKED`, values);
    const woken = await this.rows(`SELECT ${columns} FROM ${jobs} WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND wake_at <= $1
      AND ${NOT_LEASED}${roles} ORDER BY wake_at, row_order LIMIT $2 FOR UPDATE SKIP LOCKED`, values);
    return [...active, ...woken];
  }
}

/** `col = $n, …` for the fields given, refusing a field the table does not have. */
function assignmentsOf<T extends object>(columns: { readonly [K in keyof T]-?: string }, values: Partial<T>): [string, unknown[]] {
  const assignments: string[] = [];
  const parameters: unknown[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(columns, field)) throw new Error(`PostgreSQL store: no column for the field ${field}`);
    parameters.push(value);
    assignments.push(`${columns[field as keyof T]} = $${parameters.length}`);
  }
  return [assignments.join(", "), parameters];
}

/** The filters of a page of jobs (DESIGN §11's list): SQL conditions and their values. */
function pageConditions(query: Omit<JobPageQuery, "before" | "after" | "limit">): [string[], unknown[]] {
  const where: string[] = [];
  const values: unknown[] = [];
  if (query.statuses !== undefined) where.push(`status = ANY($${values.push([...query.statuses])}::text[])`);
  if (query.role !== undefined) where.push(`role = $${values.push(query.role)}`);
  if (query.parentId !== undefined) where.push(`parent_id = $${values.push(query.parentId)}`);
  if (query.idPrefix !== undefined) {
    // The range uses the primary key; starts_with makes it exact.
    where.push(`id COLLATE "C" >= $${values.push(query.idPrefix.prefix)} AND id COLLATE "C" < $${values.push(query.idPrefix.upper)} AND starts_with(id, $${values.push(query.idPrefix.prefix)})`);
  }
  if (query.createdFrom !== undefined) where.push(`created_at >= $${values.push(query.createdFrom)}`);
  if (query.createdTo !== undefined) where.push(`created_at < $${values.push(query.createdTo)}`);
  return [where, values];
}
