/**
 * The one conformance suite, looped over every store this environment offers: SQLite in memory,
 * SQLite in a file (with a second connection, as a second process would open, and damaged rows), and PostgreSQL
 * when `STATEK_TEST_POSTGRES` names a server (`postgres://…`; `npm run test:pg` starts one), else skipped with
 * the reason printed — except in CI, where a missing server fails the run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { createPostgresStore, PostgresStore } from "../src/store/postgres/postgres-store.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { runStoreSuite, type StoreSuiteOptions } from "../src/store/store.suite.ts";
import { damagePostgres } from "./support/postgres-damage.ts";
import { POSTGRES_URL, postgresSkipReason, testPostgresStore } from "./support/postgres-server.ts";
import { damageSqlite } from "./support/sqlite-damage.ts";

const root = mkdtempSync(join(tmpdir(), "statek-conformance-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** The raw connection behind each in-memory store (the only way to reach its rows), or each file's path. */
const memoryConnections = new WeakMap<Store, DatabaseSync>();
const filePaths = new WeakMap<Store, string>();

/** The schema of a PostgreSQL store under test. */
function schemaOf(store: Store): string {
  if (!(store instanceof PostgresStore)) throw new Error("not a PostgreSQL store");
  return store.schema;
}

/** A store the suite runs against, or the reason it cannot here. */
type StoreUnderTest = StoreSuiteOptions & { unavailable?: string };

const STORES: StoreUnderTest[] = [
  {
    name: "sqlite :memory:",
    create: async () => {
      const raw = new DatabaseSync(":memory:");
      const store = createSqliteStore({ path: ":memory:", database: raw });
      memoryConnections.set(store, raw);
      return store;
    },
    damage: async (store, target) => damageSqlite(memoryConnections.get(store)!, target),
  },
  {
    name: "sqlite file",
    create: async () => {
      const path = join(root, `case-${++files}`, "statek.db");
      const store = createSqliteStore({ path });
      filePaths.set(store, path);
      return store;
    },
    openSecond: async (store) => createSqliteStore({ path: filePaths.get(store)! }),
    damage: async (store, target) => {
      const raw = new DatabaseSync(filePaths.get(store)!);
      try {
        raw.exec("PRAGMA busy_timeout = 5000");
        return damageSqlite(raw, target);
      } finally {
        raw.close();
      }
    },
  },
  {
    name: "postgres",
    // Each case gets a fresh schema on the server; the second connection is another store on that schema.
    create: async () => testPostgresStore(),
    openSecond: async (store) => createPostgresStore({ connectionString: POSTGRES_URL!, schema: schemaOf(store) }),
    damage: async (store, target) => damagePostgres(POSTGRES_URL!, schemaOf(store), target),
    ...(postgresSkipReason() === undefined ? {} : { unavailable: postgresSkipReason()! }),
  },
];

for (const entry of STORES) {
  if (entry.unavailable === undefined) runStoreSuite(entry);
  else {
    describe(`Store conformance: ${entry.name}`, () => {
      it("runs the conformance suite", { skip: entry.unavailable }, () => undefined);
    });
  }
}
