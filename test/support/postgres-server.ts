/**
 * The PostgreSQL server tests run against: `STATEK_TEST_POSTGRES` (set by `npm run test:pg` and `.ci/run`
 * through `scripts/with-postgres.ts`). Each test gets stores in fresh schemas, dropped when its file ends. In CI
 * (`CI` set) a missing server is an error, never a skip.
 */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import pg from "pg";
import { createPostgresStore, type PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import type { PostgresStoreConfig } from "../../src/store/postgres/postgres-config.ts";

/** The server's URL, or undefined when none is configured. */
export const POSTGRES_URL: string | undefined = process.env["STATEK_TEST_POSTGRES"] || undefined;

/** Why PostgreSQL tests are skipped here (undefined: they run). Throws in CI, where skipping is not allowed. */
export function postgresSkipReason(): string | undefined {
  if (POSTGRES_URL !== undefined) return undefined;
  if (process.env["CI"]) {
    throw new Error("CI must test the PostgreSQL store, but STATEK_TEST_POSTGRES is not set (run the tests through scripts/with-postgres.ts)");
  }
  return "no PostgreSQL server: set STATEK_TEST_POSTGRES=postgres://user@host:port/database, or run `npm run test:pg`";
}

const schemas: string[] = [];

// Registered when the test file loads (at its top level): registered from inside a hook or a test, it would
// run when that one ends.
after(async () => {
  if (POSTGRES_URL === undefined || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (const name of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await client.end();
  }
});

/** A fresh schema name, dropped (with everything in it) when the test file ends. */
export function freshSchema(): string {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  schemas.push(schema);
  return schema;
}

/** A store in a fresh schema of the test server (or in `schema`). */
export function testPostgresStore(overrides: Partial<PostgresStoreConfig> = {}): PostgresStore {
  return createPostgresStore({ connectionString: POSTGRES_URL!, schema: freshSchema(), ...overrides });
}

/** A raw connection to the test server, for what tests do behind the store's back. */
export async function rawPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL! });
  await client.connect();
  return client;
}
