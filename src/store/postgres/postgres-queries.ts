/**
 * @module
 * The SQL of the PostgreSQL adapter: every read and write of `../store-adapter.ts` on a `pg` connection or pool,
 * as named prepared statements. No rule lives here (see `../store-rules.ts`), and what the engines build alike
 * is in `../sql-builders.ts`. The PostgreSQL-specific parts: `FOR UPDATE` on the rows a transaction's rules
 * read, `FOR UPDATE SKIP LOCKED` in the claim queries (served by the partial indexes of migration 1), the
 * database's clock, arrays (`unnest`, `= ANY`) for multi-row writes, and the outbox's ids handed out in commit
 * order (see {@link PostgresTransaction}).
 */
import type { FutureState } from "../durable-rows.ts";
import {
  AGENT_COLUMNS, PENDING_SQL, rolesWhere, CLAIM_FIELDS, FUTURE_COLUMNS, JOB_COLUMNS, LOCKED_JOB_FIELDS, SqlParameters, assignments, cursorOf, insertLists, jobConditions,
  memorySelect, memoryUpsert, pageConditions, rolesCondition, selectList, where, type SqlDialect,
} from "../sql-builders.ts";
import type {
  AdapterReads, AdapterTransaction, AgentEventValues, AgentValues, ClaimQuery, EventRowQuery, EventValues, FutureValues, HistoryValues, JobPageQuery, JobQuery, JobValues,
  JournalValues, MemoryValues, StoredRow, VariableVersionValues,
} from "../store-adapter.ts";
import { readInteger } from "../store-rows.ts";
import { breaksConnection } from "./postgres-errors.ts";
import { ACTIVE_STATUSES, WAITING_STATUS } from "../store-rules.ts";
import type { VariableRow } from "../store.ts";

/** The slice of `pg`'s `Pool` and `PoolClient` the queries call: one query, its rows and count. */
export interface PostgresQueryable {
  query(query: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<{ rows: StoredRow[]; rowCount: number | null }>;
}

/** PostgreSQL's side of the shared builders: `$n` parameters, arrays for lists, `COLLATE "C"` for ids. */
export const POSTGRES_DIALECT: SqlDialect = {
  name: "PostgreSQL store",
  placeholder: (position) => `$${position}`,
  oneOf: (column, values, parameters) => `${column} = ANY(${parameters.add([...values])}::text[])`,
  // Ids compare bytewise, as SQLite compares them, so a cursor means the same on both stores.
  bytewise: (column) => `${column} COLLATE "C"`,
  startsWith: (column, prefix, parameters) => `starts_with(${column}, ${parameters.add(prefix)})`,
  insertionOrder: "row_order",
};

const parametersOf = () => new SqlParameters(POSTGRES_DIALECT);
/** Nobody holds a live lease at `now` (the claim queries' condition). */
const notLeased = (now: string) => `(lease_owner IS NULL OR lease_until <= ${now})`;

/** The database's clock in epoch milliseconds (wall time now, not the transaction's start). */
export const CLOCK_SQL = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
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

  /** Runs a statement built with the shared builders. */
  protected built(text: string, parameters: SqlParameters): Promise<StoredRow[]> {
    return this.rows(text, parameters.values);
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
    const p = parametersOf();
    const conditions = jobConditions(query, p, POSTGRES_DIALECT);
    return this.built(`${this.jobSelect}${where(conditions)} ORDER BY created_at DESC, row_order DESC LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`, p);
  }

  async readJobPage(query: JobPageQuery): Promise<StoredRow[]> {
    const p = parametersOf();
    const filters = pageConditions(query, p, POSTGRES_DIALECT);
    const cursor = cursorOf(query, p, POSTGRES_DIALECT);
    return this.built(`${this.jobSelect}${where([...filters, ...cursor.conditions])} ORDER BY ${cursor.order} LIMIT ${p.add(query.limit)}`, p);
  }

  async countJobsByStatus(query: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit">): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.built(`SELECT status, COUNT(*)::integer AS count FROM ${this.sql.table("jobs")}${where(pageConditions(query, p, POSTGRES_DIALECT))} GROUP BY status`, p);
  }

  async readLastEventId(): Promise<unknown> {
    return (await this.rows(`SELECT MAX(id) AS id FROM ${this.sql.table("events")}`, []))[0]?.["id"];
  }

  async readVariables(jobId: string): Promise<StoredRow[]> {
    return this.rows(`SELECT name, blob, position FROM ${this.sql.table("job_variables")} WHERE job_id = $1 ORDER BY position, name COLLATE "C"`, [jobId]);
  }

  async readVariableVersions(jobId: string, upToTurn: number): Promise<StoredRow[]> {
    return this.rows(
      `SELECT name, turn, position, blob FROM ${this.sql.table("job_variable_versions")} WHERE job_id = $1 AND turn <= $2 ORDER BY name COLLATE "C", turn`,
      [jobId, upToTurn],
    );
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

  async readMemory(contexts: readonly string[]): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.built(memorySelect(this.sql.table("memory"), contexts, p, POSTGRES_DIALECT), p);
  }

  async readLeaseOwners(now: number): Promise<StoredRow[]> {
    return this.rows(`SELECT DISTINCT lease_owner AS "leaseOwner" FROM ${this.sql.table("jobs")} WHERE lease_owner IS NOT NULL AND lease_until > $1`, [now]);
  }

  async readAgents(roles?: readonly string[]): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.built(`SELECT ${selectList(AGENT_COLUMNS)} FROM ${this.sql.table("agents")}${rolesWhere(roles, p, POSTGRES_DIALECT)} ORDER BY role COLLATE "C"`, p);
  }

  async countAgentEvents(roles?: readonly string[]): Promise<StoredRow[]> {
    const p = parametersOf();
    return this.built(`SELECT role, COUNT(*)::integer AS count FROM ${this.sql.table("agent_events")}${rolesWhere(roles, p, POSTGRES_DIALECT)}
      GROUP BY role ORDER BY role COLLATE "C"`, p);
  }

  async readAgentEvents(role: string, limit: number): Promise<StoredRow[]> {
    return this.rows(`SELECT id, role, data, at FROM ${this.sql.table("agent_events")} WHERE role = $1 ORDER BY id LIMIT $2`, [role, limit]);
  }

  async readNextClaim(roles?: readonly string[]): Promise<StoredRow> {
    const jobs = this.sql.table("jobs");
    const p = parametersOf();
    const ofRoles = () => rolesCondition(roles, p, POSTGRES_DIALECT);
    // One statement: the clock is read once, and an idle worker's look costs one round trip.
    const sql = `WITH clock AS (SELECT ${CLOCK_SQL} AS now) SELECT clock.now,
      (SELECT 1 FROM ${jobs} WHERE status IN (${ACTIVE_SQL}) AND ${notLeased("clock.now")}${ofRoles()} LIMIT 1) AS runnable,
      (SELECT wake_at FROM ${jobs} WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND ${notLeased("clock.now")}${ofRoles()} ORDER BY wake_at LIMIT 1) AS "wakeAt",
      (SELECT MIN(lease_until) FROM ${jobs} WHERE lease_owner IS NOT NULL AND lease_until > clock.now${ofRoles()}) AS "leaseUntil"
      FROM clock`;
    return (await this.built(sql, p))[0] ?? {};
  }
}

/** How a {@link PostgresTransaction} begins and what it sends with its commit. */
export interface PostgresTransactionStart {
  /** The `BEGIN` already sent on the connection (not awaited), resolving to the clock it read. */
  begun: Promise<number>;
  /** The statement that tells other processes of a waking commit (a `NOTIFY` delivered when the commit is). */
  notify: { text: string; values: unknown[] };
}

/**
 * One transaction on one connection. Its clock is read once, at `BEGIN`: every write of the transaction is
 * stamped with the same time. Events are not inserted where they are written but just before `COMMIT`, under a
 * transaction-level advisory lock held until the commit is visible: so ids are handed out in commit order, and
 * a reader that has seen id n never misses an id below it committed later. Writes undone by a savepoint take
 * their events with them.
 *
 * Statements are pipelined: `BEGIN` goes out with the first statement, and a write whose answer the rules do
 * not read (an update, an insert of history or variables) is sent and not awaited — the next statement that is
 * awaited (a read, a savepoint, {@link flush}) waits for it too and throws its error first. At the end of a
 * batch ({@link flush}) the events, the wake-up `NOTIFY` and `COMMIT` are sent behind the writes, so the writes'
 * answers and the commit share one round trip; when a write failed, the server turns that `COMMIT` into a
 * rollback (the transaction is aborted), and the write's error is thrown, as its own. A batch of writes that
 * read nothing thus costs one round trip, and each awaited read one more.
 */
export class PostgresTransaction extends PostgresReads implements AdapterTransaction {
  readonly #begun: Promise<number>;
  readonly #notify: { text: string; values: unknown[] };
  #announce = false;
  #events: EventValues[] = [];
  /** True while the savepoint of the last successful write is still open (the next write releases it). */
  #savepointOpen = false;
  /** Statements sent and not yet awaited, in the order they went out (`BEGIN` first). */
  #sent: Promise<unknown>[];
  /** The statements that end the transaction (events, `NOTIFY`, `COMMIT`), once sent. */
  #ending: Promise<unknown>[] | undefined;
  #broken = false;

  constructor(db: PostgresQueryable, sql: PostgresStatements, start: PostgresTransactionStart) {
    super(db, sql);
    this.#begun = start.begun;
    this.#notify = start.notify;
    void this.#watch(this.#begun); // its error is thrown by the first statement awaited
    this.#sent = [start.begun];
  }

  /**
   * True once a statement failed in a way that breaks the connection: it must not go back to the pool. (The
   * error may reach the adapter wrapped, or not at all when a later statement's is thrown.)
   */
  get broken(): boolean {
    return this.#broken;
  }

  /** Notes a statement's failure (thrown where it is awaited): one that breaks the connection marks it broken. */
  #watch<T>(statement: Promise<T>): Promise<T> {
    statement.catch((error: unknown) => {
      if (breaksConnection(error)) this.#broken = true;
    });
    return statement;
  }

  /** Sends one statement of this transaction. */
  #query(query: string | { name: string; text: string; values: unknown[] }): Promise<{ rows: StoredRow[]; rowCount: number | null }> {
    return this.#watch(this.db.query(query));
  }

  override now(): Promise<number> {
    return this.#begun;
  }

  /** Sends a statement without waiting for its answer (see the class's comment). */
  #send(text: string, values: unknown[]): void {
    void this.#sendAnswered(text, values);
  }

  /** {@link #send}, resolving to the answer (its error is thrown by the flush that awaits it too). */
  #sendAnswered(text: string, values: unknown[]): Promise<{ rows: StoredRow[]; rowCount: number | null }> {
    const sent = this.#query(this.sql.query(text, values));
    this.#sent.push(sent);
    return sent;
  }

  /** Waits for the statements sent so far, throwing the first one's error. */
  async #awaitSent(): Promise<void> {
    const sent = this.#sent;
    this.#sent = [];
    for (const statement of sent) await statement;
  }

  /**
   * The end of the batch's writes: sends the events, the wake-up `NOTIFY` (when asked) and `COMMIT` behind them,
   * then waits for the writes, throwing the first failed one's error (the `COMMIT` then rolls back).
   */
  async flush(): Promise<void> {
    this.#sendEnding();
    await this.#awaitSent();
  }

  /** Commits: sends what ends the transaction unless {@link flush} did, and waits for every statement. */
  async commit(): Promise<void> {
    this.#sendEnding();
    await this.#awaitSent();
    for (const statement of this.#ending!) await statement;
  }

  announceWakeupOnCommit(): void {
    this.#announce = true;
  }

  /** Waits for the writes sent so far and forgets their errors (the transaction or savepoint is being undone). */
  async #drain(): Promise<void> {
    const sent = this.#sent;
    this.#sent = [];
    await Promise.allSettled(sent);
  }

  /** Sends the events under the lock that orders their ids, the `NOTIFY`, and `COMMIT`; once. */
  #sendEnding(): void {
    if (this.#ending) return;
    const ending: Promise<unknown>[] = [];
    const send = (query: string | { name: string; text: string; values: unknown[] }) => {
      // After a failed write these fail too; the write's error is the one thrown.
      ending.push(this.#query(query));
    };
    const events = this.#events;
    this.#events = [];
    if (events.length) {
      send(this.sql.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [EVENTS_LOCK_CLASS, this.sql.schema]));
      send(this.sql.query(
        `INSERT INTO ${this.sql.table("events")} (job_id, kind, at, data)
          SELECT job_id, kind, at, data FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) WITH ORDINALITY AS e (job_id, kind, at, data, n) ORDER BY n`,
        [events.map((event) => event.jobId), events.map((event) => event.kind), events.map((event) => event.at), events.map((event) => event.data)],
      ));
    }
    if (this.#announce) send(this.sql.query(this.#notify.text, this.#notify.values));
    send("COMMIT");
    this.#ending = ending;
  }

  /** Sends the statement at once (behind the writes sent before it), then throws a sent write's error if one failed. */
  protected override async rows(text: string, values: unknown[] = []): Promise<StoredRow[]> {
    // When a write before it failed, that write's error is the one thrown.
    const query = this.#query(this.sql.query(text, values));
    await this.#awaitSent();
    return (await query).rows;
  }

  protected override async run(text: string, values: unknown[] = []): Promise<number> {
    const query = this.#query(this.sql.query(text, values));
    await this.#awaitSent();
    return (await query).rowCount ?? 0;
  }

  async savepoint<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
    // One round trip per write: the previous write's savepoint is released with the next one's creation.
    await this.#awaitSent();
    await this.#query(this.#savepointOpen ? "RELEASE SAVEPOINT statek_write; SAVEPOINT statek_write" : "SAVEPOINT statek_write");
    this.#savepointOpen = true;
    const events = this.#events.length;
    try {
      const value = await work();
      await this.#awaitSent();
      return { ok: true, value };
    } catch (error) {
      await this.#drain();
      await this.#query("ROLLBACK TO SAVEPOINT statek_write; RELEASE SAVEPOINT statek_write");
      this.#savepointOpen = false;
      this.#events.length = events;
      return { ok: false, error };
    }
  }

  async lockJob(id: string): Promise<StoredRow | undefined> {
    return (await this.rows(`SELECT ${selectList(JOB_COLUMNS, LOCKED_JOB_FIELDS)} FROM ${this.sql.table("jobs")} WHERE id = $1 FOR UPDATE`, [id]))[0];
  }

  insertJob(values: JobValues): Promise<boolean> {
    const p = parametersOf();
    const { names, values: placeholders } = insertLists(JOB_COLUMNS, values, p);
    // Sent, not awaited here: the core sends the job's other rows before it reads the answer.
    const inserted = this.#sendAnswered(`INSERT INTO ${this.sql.table("jobs")} (${names}) VALUES (${placeholders}) ON CONFLICT (id) DO NOTHING`, p.values)
      .then((result) => result.rowCount === 1);
    inserted.catch(() => undefined); // a caller that failed before reading it: the flush throws the error
    return inserted;
  }

  async updateJob(id: string, values: Partial<Omit<JobValues, "id">>): Promise<void> {
    const p = parametersOf();
    const set = assignments(JOB_COLUMNS, values, p, POSTGRES_DIALECT.name);
    if (set) this.#send(`UPDATE ${this.sql.table("jobs")} SET ${set} WHERE id = ${p.add(id)}`, p.values);
  }

  async putVariables(jobId: string, variables: readonly VariableRow[]): Promise<void> {
    if (variables.length === 0) return;
    this.#send(
      `INSERT INTO ${this.sql.table("job_variables")} (job_id, name, blob, position)
        SELECT $1, name, blob, position FROM unnest($2::text[], $3::text[], $4::bigint[]) AS v (name, blob, position)
        ON CONFLICT (job_id, name) DO UPDATE SET blob = excluded.blob, position = excluded.position`,
      [jobId, variables.map((variable) => variable.name), variables.map((variable) => variable.blob), variables.map((variable) => variable.position)],
    );
  }

  async deleteVariables(jobId: string, names: readonly string[]): Promise<void> {
    if (names.length) this.#send(`DELETE FROM ${this.sql.table("job_variables")} WHERE job_id = $1 AND name = ANY($2::text[])`, [jobId, [...names]]);
  }

  async putVariableVersions(jobId: string, versions: readonly VariableVersionValues[]): Promise<void> {
    if (versions.length === 0) return;
    this.#send(
      `INSERT INTO ${this.sql.table("job_variable_versions")} (job_id, name, turn, position, blob)
        SELECT $1, name, turn, position, blob FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[]) AS v (name, turn, position, blob)
        ON CONFLICT (job_id, name, turn) DO UPDATE SET position = excluded.position, blob = excluded.blob`,
      [jobId, versions.map((version) => version.name), versions.map((version) => version.turn), versions.map((version) => version.position), versions.map((version) => version.blob)],
    );
  }

  async insertHistory(jobId: string, records: readonly HistoryValues[]): Promise<void> {
    if (records.length === 0) return;
    this.#send(
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
    this.#send(
      `INSERT INTO ${this.sql.table("journal")} (job_id, cell, idx, data)
        SELECT $1, $2, idx, data FROM unnest($3::bigint[], $4::text[]) AS j (idx, data)`,
      [jobId, cell, entries.map((entry) => entry.index), entries.map((entry) => entry.data)],
    );
  }

  async deleteJournal(jobId: string): Promise<void> {
    this.#send(`DELETE FROM ${this.sql.table("journal")} WHERE job_id = $1`, [jobId]);
  }

  async lockFuture(key: string): Promise<StoredRow | undefined> {
    return (await this.rows(`${this.futureSelect} WHERE key = $1 FOR UPDATE`, [key]))[0];
  }

  async insertFuture(values: FutureValues): Promise<boolean> {
    const p = parametersOf();
    const { names, values: placeholders } = insertLists(FUTURE_COLUMNS, values, p);
    return (await this.run(`INSERT INTO ${this.sql.table("futures")} (${names}) VALUES (${placeholders}) ON CONFLICT (key) DO NOTHING`, p.values)) === 1;
  }

  async updateFuture(key: string, values: Partial<Omit<FutureValues, "key">>): Promise<void> {
    const p = parametersOf();
    const set = assignments(FUTURE_COLUMNS, values, p, POSTGRES_DIALECT.name);
    if (set) this.#send(`UPDATE ${this.sql.table("futures")} SET ${set} WHERE key = ${p.add(key)}`, p.values);
  }

  async settleWaitingFutures(jobId: string, values: Pick<FutureValues, "state" | "value" | "settledAt">): Promise<void> {
    this.#send(
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

  async upsertMemory(values: MemoryValues): Promise<void> {
    const p = parametersOf();
    await this.run(memoryUpsert(this.sql.table("memory"), values, p), p.values);
  }

  async deleteMemory(context: string, key: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${this.sql.table("memory")} WHERE context = $1 AND key = $2`, [context, key])) === 1;
  }

  async expireLeasesOf(owner: string, now: number): Promise<number> {
    const expired = await this.rows(`UPDATE ${this.sql.table("jobs")} SET lease_until = $1 WHERE lease_owner = $2 AND lease_until > $1 RETURNING id`, [now, owner]);
    return expired.length;
  }

  async lockAgent(values: AgentValues): Promise<StoredRow> {
    const agents = this.sql.table("agents");
    const p = parametersOf();
    const { names, values: placeholders } = insertLists(AGENT_COLUMNS, values, p);
    // A concurrent insert of the same role waits for the first to commit, then does nothing; FOR UPDATE then waits
    // for whoever holds the row, so every transaction on one role counts what the one before it wrote.
    await this.run(`INSERT INTO ${agents} (${names}) VALUES (${placeholders}) ON CONFLICT (role) DO NOTHING`, p.values);
    return (await this.rows(`SELECT ${selectList(AGENT_COLUMNS)} FROM ${agents} WHERE role = $1 FOR UPDATE`, [values.role]))[0]!;
  }

  async updateAgent(role: string, values: Partial<Omit<AgentValues, "role">>): Promise<void> {
    const p = parametersOf();
    const set = assignments(AGENT_COLUMNS, values, p, POSTGRES_DIALECT.name);
    if (set) this.#send(`UPDATE ${this.sql.table("agents")} SET ${set} WHERE role = ${p.add(role)}`, p.values);
  }

  async insertAgentEvent(values: AgentEventValues): Promise<unknown> {
    const [row] = await this.rows(`INSERT INTO ${this.sql.table("agent_events")} (role, data, at) VALUES ($1, $2, $3) RETURNING id`, [values.role, values.data, values.at]);
    return row?.["id"];
  }

  async deleteAgentEvents(ids: readonly number[]): Promise<void> {
    if (ids.length) this.#send(`DELETE FROM ${this.sql.table("agent_events")} WHERE id = ANY($1::bigint[])`, [[...ids]]);
  }

  async countPendingJobs(role: string): Promise<unknown> {
    const [row] = await this.rows(`SELECT COUNT(*)::integer AS count FROM ${this.sql.table("jobs")} WHERE role = $1 AND ${PENDING_SQL}`, [role]);
    return row?.["count"];
  }

  async selectClaimable(query: ClaimQuery & { limit: number }): Promise<StoredRow[]> {
    const columns = selectList(JOB_COLUMNS, CLAIM_FIELDS);
    const jobs = this.sql.table("jobs");
    // One set of parameters for both queries: $1 now, $2 the limit, $3 the roles.
    const p = parametersOf();
    const now = p.add(query.now);
    const limit = p.add(query.limit);
    const roles = rolesCondition(query.roles, p, POSTGRES_DIALECT);
    // Both sent before either is awaited: one round trip.
    const [active, woken] = await Promise.all([this.built(`SELECT ${columns} FROM ${jobs} WHERE status IN (${ACTIVE_SQL}) AND ${notLeased(now)}${roles}
      ORDER BY created_at, row_order LIMIT ${limit} FOR UPDATE SKIP LOCKED`, p),
    this.built(`SELECT ${columns} FROM ${jobs} WHERE status = '${WAITING_STATUS}' AND wake_at IS NOT NULL AND wake_at <= ${now}
      AND ${notLeased(now)}${roles} ORDER BY wake_at, row_order LIMIT ${limit} FOR UPDATE SKIP LOCKED`, p)]);
    return [...active, ...woken];
  }
}
