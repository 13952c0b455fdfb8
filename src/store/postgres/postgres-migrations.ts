/**
 * @module
 * The PostgreSQL schema as versioned migrations, applied under an advisory lock: several processes starting
 * at once on one database migrate it once. A migration is never edited once released: schema changes are new
 * entries with the next version. Applied versions are recorded in `<schema>.statek_migrations`.
 *
 * The columns mirror the SQLite schema with PostgreSQL's types: times and counters are `bigint` (epoch
 * milliseconds overflow `integer`), JSON fields are `text` — stored exactly as written, so what the store reads
 * back is what it wrote, and a damaged value is a readable error rather than a type the driver converts.
 */
import type { PostgresQueryable } from "./postgres-queries.ts";

/** One schema change; `up` gets the quoted schema name (`"statek"`) to qualify every table with. */
export interface PostgresMigration {
  /** 1, 2, 3, … in order; the schema version after this migration is applied. */
  version: number;
  /** A short readable name, recorded with the version. */
  name: string;
  /** The SQL to run (several statements allowed), inside the migration's transaction. */
  up: (schema: string) => string;
}

/** Every migration this version of STATEK knows, in ascending `version`. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "jobs, variables, history, leases, the current cell's journal, futures, the outbox of job events",
    // Version 1 here is SQLite's versions 1 and 2 together (the PostgreSQL store started with the second
    // contract). row_order breaks ties between jobs created in the same millisecond (SQLite's rowid). The
    // partial indexes hold exactly the jobs a claim may take: jobs_runnable the active statuses (ACTIVE_STATUSES
    // in store-rules.ts; a change there needs a new migration), jobs_wake_at the suspended jobs with a timer.
    // Events have no foreign key: the outbox outlives pruned jobs.
    up: (s) => `
      CREATE TABLE ${s}.jobs (
        id text PRIMARY KEY,
        row_order bigint GENERATED ALWAYS AS IDENTITY,
        role text NOT NULL,
        status text NOT NULL,
        params text NOT NULL,
        metadata text NOT NULL,
        parent_id text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        version bigint NOT NULL,
        turns bigint NOT NULL,
        pending_seq bigint,
        history_length bigint NOT NULL,
        exit_status text,
        error text,
        usage text NOT NULL,
        state text NOT NULL,
        wake_at bigint,
        cell bigint NOT NULL DEFAULT 0,
        lease_owner text,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_until bigint
      );
      CREATE INDEX jobs_created_at ON ${s}.jobs (created_at DESC, row_order DESC);
      CREATE INDEX jobs_status_created_at ON ${s}.jobs (status, created_at DESC, row_order DESC);
      CREATE INDEX jobs_role_created_at ON ${s}.jobs (role, created_at DESC, row_order DESC);
      CREATE INDEX jobs_parent_id_created_at ON ${s}.jobs (parent_id, created_at DESC, row_order DESC);
      CREATE INDEX jobs_runnable ON ${s}.jobs (created_at, row_order) WHERE status IN ('READY', 'WARMING_UP', 'STARTED');
      CREATE INDEX jobs_wake_at ON ${s}.jobs (wake_at, row_order) WHERE status = 'SUSPENDED' AND wake_at IS NOT NULL;
      CREATE TABLE ${s}.job_variables (
        job_id text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        name text NOT NULL,
        blob text NOT NULL,
        position bigint NOT NULL,
        PRIMARY KEY (job_id, name)
      );
      CREATE TABLE ${s}.job_history (
        job_id text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        kind text NOT NULL,
        at bigint NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (job_id, seq)
      );
      CREATE TABLE ${s}.journal (
        job_id text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        cell bigint NOT NULL,
        idx bigint NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (job_id, idx)
      );
      CREATE TABLE ${s}.futures (
        key text PRIMARY KEY,
        job_id text REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        kind text NOT NULL,
        wake_at bigint,
        state text NOT NULL,
        value text NOT NULL,
        data text NOT NULL,
        created_at bigint NOT NULL,
        settled_at bigint
      );
      CREATE INDEX futures_job_id ON ${s}.futures (job_id, created_at, key);
      CREATE TABLE ${s}.events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_id text NOT NULL,
        kind text NOT NULL,
        at bigint NOT NULL,
        data text NOT NULL
      );
      CREATE INDEX events_job_id ON ${s}.events (job_id, id);
    `,
  },
  {
    version: 2,
    name: "waiting futures by kind",
    // Only waiting futures are in it, so listing pending approvals never reads settled ones or other kinds.
    up: (s) => `CREATE INDEX futures_waiting_kind ON ${s}.futures (kind, created_at, key COLLATE "C") WHERE state = 'waiting';`,
  },
  {
    version: 3,
    name: "leased jobs by owner",
    // A step's end releases its lease (owner NULL), so only the jobs being stepped are in it.
    up: (s) => `CREATE INDEX jobs_lease_owner ON ${s}.jobs (lease_owner, lease_until) WHERE lease_owner IS NOT NULL;`,
  },
  {
    version: 4,
    name: "agents that run themselves: breakers, queued events, pending jobs by role",
    // As SQLite's version 5. An agent's row is what a transaction locks (FOR UPDATE) to count its pending jobs
    // and create jobs or take events: two workers on one role take turns.
    up: (s) => `
      CREATE TABLE ${s}.agents (
        role text PRIMARY KEY,
        state text NOT NULL,
        reason text,
        opened_at bigint,
        failures bigint NOT NULL,
        loop_size bigint,
        loop_at bigint,
        updated_at bigint NOT NULL
      );
      CREATE TABLE ${s}.agent_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        role text NOT NULL,
        data text NOT NULL,
        at bigint NOT NULL
      );
      CREATE INDEX agent_events_role ON ${s}.agent_events (role, id);
      CREATE INDEX jobs_pending_role ON ${s}.jobs (role) WHERE status IN ('READY', 'WARMING_UP');
    `,
  },
  {
    version: 5,
    name: "shared memory",
    // One row per key of a context (a sorted JSON array of specifiers); a job reads its contexts by primary key.
    up: (s) => `
      CREATE TABLE ${s}.memory (
        context text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        category text NOT NULL,
        value text NOT NULL,
        description text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (context, key)
      );
    `,
  },
  {
    version: 6,
    name: "variable versions and forks",
    // As SQLite's version 7.
    up: (s) => `
      CREATE TABLE ${s}.job_variable_versions (
        job_id text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        name text NOT NULL,
        turn bigint NOT NULL,
        position bigint NOT NULL,
        blob text,
        PRIMARY KEY (job_id, name, turn)
      );
      ALTER TABLE ${s}.jobs ADD COLUMN forked_from text;
      ALTER TABLE ${s}.jobs ADD COLUMN versions_from bigint NOT NULL DEFAULT 0;
      UPDATE ${s}.jobs SET versions_from = turns;
      INSERT INTO ${s}.job_variable_versions (job_id, name, turn, position, blob)
        SELECT v.job_id, v.name, j.turns, v.position, v.blob FROM ${s}.job_variables AS v JOIN ${s}.jobs AS j ON j.id = v.job_id;
    `,
  },
];

/** The schema version this code creates and expects. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** The advisory lock key of a schema's migrations (a constant of ours, then the schema's hash). */
export const MIGRATION_LOCK_CLASS = 0x5354_4b4d; // "STKM"

/**
 * Brings `schema` up to {@link POSTGRES_SCHEMA_VERSION} on `client` (a connection of its own: the advisory lock
 * is the session's). Under `pg_advisory_lock`, a second process waits, then sees the versions the first applied
 * and does nothing. Each run applies the missing migrations in one transaction. Fails, changing nothing, when
 * the schema was created by a newer STATEK.
 */
export async function applyPostgresMigrations(
  client: PostgresQueryable,
  { schema, where, migrations = POSTGRES_MIGRATIONS }: { schema: string; where: string; migrations?: readonly PostgresMigration[] },
): Promise<void> {
  const quoted = `"${schema}"`;
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
  try {
    await client.query("BEGIN");
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.statek_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
      const { rows } = await client.query(`SELECT COALESCE(MAX(version), 0)::int AS version FROM ${quoted}.statek_migrations`);
      const current = Number(rows[0]?.["version"] ?? 0);
      if (current > latest) {
        throw new Error(
          `the schema ${schema} at ${where} has schema version ${current}, but this version of STATEK knows schema versions up to ${latest}; upgrade STATEK to use it`,
        );
      }
      for (const migration of migrations) {
        if (migration.version <= current) continue;
        await client.query(migration.up(quoted));
        await client.query(`INSERT INTO ${quoted}.statek_migrations (version, name, applied_at) VALUES ($1, $2, $3)`, [migration.version, migration.name, Date.now()]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]).catch(() => undefined);
  }
}
