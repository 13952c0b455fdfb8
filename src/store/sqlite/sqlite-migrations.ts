/**
 * @module
 * The SQLite schema as versioned migrations. A migration is never edited once released: schema changes are
 * new entries with the next version. Applied versions are recorded in `statek_migrations`.
 */

import type { SqliteDatabase } from "./sqlite-config.ts";

/** One schema change. */
export interface SqliteMigration {
  /** 1, 2, 3, … in order; the schema version after this migration is applied. */
  version: number;
  /** A short readable name, recorded with the version. */
  name: string;
  /** The SQL to run (several statements allowed). */
  up: string;
}

/** Every migration this version of STATEK knows, in ascending `version`. */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: "jobs, variables and history",
    // parent_id has no foreign key on purpose: a parent may be pruned before its children, and insertion
    // order across processes must not matter. Variables and history belong to their job and cascade.
    up: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        role TEXT NOT NULL,
        status TEXT NOT NULL,
        params TEXT NOT NULL,
        metadata TEXT NOT NULL,
        parent_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        version INTEGER NOT NULL,
        turns INTEGER NOT NULL,
        pending_seq INTEGER,
        history_length INTEGER NOT NULL,
        exit_status TEXT,
        error TEXT,
        usage TEXT NOT NULL,
        state TEXT NOT NULL
      );
      CREATE INDEX jobs_created_at ON jobs (created_at);
      CREATE INDEX jobs_status_created_at ON jobs (status, created_at);
      CREATE INDEX jobs_role_created_at ON jobs (role, created_at);
      CREATE INDEX jobs_parent_id_created_at ON jobs (parent_id, created_at);
      CREATE TABLE job_variables (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        blob TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (job_id, name)
      ) WITHOUT ROWID;
      CREATE TABLE job_history (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (job_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "durable execution: leases, the current cell's journal, futures, the outbox of job events",
    // The partial indexes hold exactly the jobs a claim may take: jobs_runnable the active statuses
    // (ACTIVE_STATUSES in store-rules.ts; a change there needs a new migration), jobs_wake_at the suspended
    // jobs with a timer. A suspended job waiting only for a message or a future is in neither, so claims and
    // nextClaim never read it. The journal holds one cell per job (its primary key has no cell). Events have
    // no foreign key: the outbox outlives pruned jobs, and AUTOINCREMENT never reuses an id a reader saw.
    up: `
      ALTER TABLE jobs ADD COLUMN wake_at INTEGER;
      ALTER TABLE jobs ADD COLUMN cell INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
      ALTER TABLE jobs ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN lease_until INTEGER;
      CREATE INDEX jobs_runnable ON jobs (created_at) WHERE status IN ('READY', 'WARMING_UP', 'STARTED');
      CREATE INDEX jobs_wake_at ON jobs (wake_at) WHERE status = 'SUSPENDED' AND wake_at IS NOT NULL;
      CREATE TABLE journal (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        cell INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (job_id, idx)
      ) WITHOUT ROWID;
      CREATE TABLE futures (
        key TEXT PRIMARY KEY,
        job_id TEXT REFERENCES jobs (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        wake_at INTEGER,
        state TEXT NOT NULL,
        value TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        settled_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX futures_job_id ON futures (job_id, created_at);
      CREATE INDEX futures_wake_at ON futures (wake_at) WHERE state = 'waiting' AND wake_at IS NOT NULL;
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX events_job_id ON events (job_id, id);
    `,
  },
  {
    version: 3,
    name: "waiting futures by kind (pending approvals across jobs)",
    // Only waiting futures are in it, so listing pending approvals never reads settled ones or other kinds.
    up: `
      CREATE INDEX futures_waiting_kind ON futures (kind, created_at, key) WHERE state = 'waiting';
    `,
  },
  {
    version: 4,
    name: "leased jobs by owner (taking over a dead worker's jobs at once)",
    // A step's end releases its lease (owner NULL), so only the jobs being stepped are in it.
    up: `
      CREATE INDEX jobs_lease_owner ON jobs (lease_owner, lease_until) WHERE lease_owner IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: "agents that run themselves: breakers, queued events, pending jobs by role",
    // agents holds a row per role that has ever been locked (a loop, an event taken, a job's end counted). An
    // event's id orders its role's FIFO (AUTOINCREMENT never reuses one). jobs_pending_role holds only the jobs
    // a loop counts (READY, WARMING_UP), so counting them never reads a role's finished jobs.
    up: `
      CREATE TABLE agents (
        role TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        reason TEXT,
        opened_at INTEGER,
        failures INTEGER NOT NULL,
        loop_size INTEGER,
        loop_at INTEGER,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE agent_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        role TEXT NOT NULL,
        data TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX agent_events_role ON agent_events (role, id);
      CREATE INDEX jobs_pending_role ON jobs (role) WHERE status IN ('READY', 'WARMING_UP');
    `,
  },
  {
    version: 6,
    name: "shared memory",
    // One row per key of a context (a sorted JSON array of specifiers); a job reads its contexts by primary key.
    up: `
      CREATE TABLE memory (
        context TEXT NOT NULL,
        key TEXT NOT NULL,
        category TEXT NOT NULL,
        value TEXT NOT NULL,
        description TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (context, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 7,
    name: "variable versions and forks",
    // Each commit keeps the variables it changed under the job's turn (blob NULL: deleted), so a fork can rebuild
    // the workspace as of any turn. A job that existed before keeps its current variables as versions of its
    // current turn, and versions_from says forks of it start there.
    up: `
      CREATE TABLE job_variable_versions (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        turn INTEGER NOT NULL,
        position INTEGER NOT NULL,
        blob TEXT,
        PRIMARY KEY (job_id, name, turn)
      ) WITHOUT ROWID;
      ALTER TABLE jobs ADD COLUMN forked_from TEXT;
      ALTER TABLE jobs ADD COLUMN versions_from INTEGER NOT NULL DEFAULT 0;
      UPDATE jobs SET versions_from = turns;
      INSERT INTO job_variable_versions (job_id, name, turn, position, blob)
        SELECT v.job_id, v.name, j.turns, v.position, v.blob FROM job_variables AS v JOIN jobs AS j ON j.id = v.job_id;
    `,
  },
];

/** The schema version this code creates and expects. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

/**
 * Brings the database's schema up to {@link SQLITE_SCHEMA_VERSION}. Everything runs in one `BEGIN IMMEDIATE`
 * transaction, which takes the write lock before reading the current version: a second process migrating
 * the same file waits (busy timeout), then sees the versions the first one applied and does nothing.
 * Fails, changing nothing, when the database was created by a newer STATEK.
 */
export function applySqliteMigrations(
  database: SqliteDatabase,
  { path, migrations = SQLITE_MIGRATIONS }: { path: string; migrations?: readonly SqliteMigration[] },
): void {
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  database.exec("BEGIN IMMEDIATE");
  try {
    database.exec(
      "CREATE TABLE IF NOT EXISTS statek_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const row = database.prepare("SELECT MAX(version) AS version FROM statek_migrations").get();
    const current = Number(row?.["version"] ?? 0);
    if (current > latest) {
      throw new Error(
        `the database ${path} has schema version ${current}, but this version of STATEK knows schema versions up to ${latest}; upgrade STATEK to use it`,
      );
    }
    const record = database.prepare("INSERT INTO statek_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      database.exec(migration.up);
      record.run(migration.version, migration.name, Date.now());
    }
    database.exec("COMMIT");
  } catch (error) {
    try {
      database.exec("ROLLBACK");
    } catch {
      // SQLite already rolled back (it does on some errors); the original error is the one to report.
    }
    throw error;
  }
}
