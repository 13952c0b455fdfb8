/**
 * The one conformance suite (DESIGN.md §9), looped over every store this environment offers: SQLite in memory,
 * SQLite in a file (with a second connection, as a second process would open, and damaged rows), and PostgreSQL
 * when `STATEK_TEST_POSTGRES` names a server (`postgres://…`), else skipped with the reason printed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { openStore } from "../src/store/open-store.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { runStoreSuite, type StoreSuiteOptions } from "../src/store/store.suite.ts";
import { damageSqlite } from "./support/sqlite-damage.ts";

const root = mkdtempSync(join(tmpdir(), "statek-conformance-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** The raw connection behind each in-memory store (the only way to reach its rows), or each file's path. */
const memoryConnections = new WeakMap<Store, DatabaseSync>();
const filePaths = new WeakMap<Store, string>();

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
    // The PostgreSQL adapter (issue 11) gives each case a fresh schema on this server.
    create: async () => openStore(process.env.STATEK_TEST_POSTGRES!),
    ...(process.env.STATEK_TEST_POSTGRES
      ? {}
      : { unavailable: "set STATEK_TEST_POSTGRES=postgres://user@host:port/database to run the store suite against PostgreSQL" }),
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
