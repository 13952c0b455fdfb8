import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { DEFAULT_STORE_PATH, openStore } from "../open-store.ts";
import { sampleJob, sampleRecord } from "../store.suite.ts";
import type { SqliteDatabase } from "./sqlite-config.ts";
import { SQLITE_SCHEMA_VERSION } from "./sqlite-migrations.ts";
import { SqliteStore, createSqliteStore } from "./sqlite-store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-sqlite-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
/** A path in a directory that does not exist yet, so every case also checks that parents are created. */
const freshPath = () => join(root, `case-${++files}`, "nested", "statek.db");

/** A connection that records every `exec`, to count transactions. */
function recordingDatabase(): { database: SqliteDatabase; raw: DatabaseSync; executed: string[] } {
  const raw = new DatabaseSync(join(mkdtempSync(join(root, "recorded-")), "statek.db"));
  const executed: string[] = [];
  const database: SqliteDatabase = {
    exec: (sql) => (executed.push(sql), raw.exec(sql)),
    prepare: (sql) => raw.prepare(sql),
    close: () => raw.close(),
  };
  return { database, raw, executed };
}

// The conformance suite runs against SQLite (in memory and in a file) in test/store-conformance.test.ts; these
// are the cases only SQLite has.

describe("SqliteStore", () => {
  it("keeps jobs, variables and history across close and reopen", async () => {
    const path = freshPath();
    const job = sampleJob({ historyLength: 1 });
    const first = createSqliteStore({ path });
    await first.insertJob(job, [{ name: "x", blob: "1", position: 0 }], [sampleRecord(0)]);
    await first.close();
    const second = createSqliteStore({ path });
    assert.deepEqual(await second.getJob(job.id), job);
    assert.deepEqual(await second.getVariables(job.id), [{ name: "x", blob: "1", position: 0 }]);
    assert.deepEqual(await second.getHistory(job.id), [sampleRecord(0)]);
    await second.close();
  });

  it("uses WAL, synchronous=FULL, the busy timeout and foreign keys", async () => {
    const { database, raw } = recordingDatabase();
    const store = createSqliteStore({ path: "statek.db", database: async () => database });
    await store.migrate();
    const pragma = (name: string) => Object.values(raw.prepare(`PRAGMA ${name}`).get()!)[0];
    assert.equal(pragma("journal_mode"), "wal");
    assert.equal(pragma("synchronous"), 2); // FULL
    assert.equal(pragma("busy_timeout"), 5000);
    assert.equal(pragma("foreign_keys"), 1);
    await store.close();
  });

  it("applies the configured synchronous mode and busy timeout", async () => {
    const raw = new DatabaseSync(":memory:");
    const store = createSqliteStore({ path: ":memory:", synchronous: "NORMAL", busyTimeoutMs: 250, database: raw });
    await store.migrate();
    assert.equal(raw.prepare("PRAGMA synchronous").get()?.["synchronous"], 1); // NORMAL
    assert.equal(raw.prepare("PRAGMA busy_timeout").get()?.["timeout"], 250);
    await store.close();
  });

  it("supports several processes for files only", () => {
    assert.equal(createSqliteStore({ path: ":memory:" }).supportsMultipleProcesses, false);
    assert.equal(createSqliteStore({ path: freshPath() }).supportsMultipleProcesses, true);
    assert.equal(createSqliteStore({ path: ":memory:" }).dialect, "sqlite");
  });

  it("rejects a bad configuration at once", () => {
    assert.throws(() => createSqliteStore({ path: "" }), /path/);
    assert.throws(() => createSqliteStore({ path: ":memory:", synchronous: "SOMETIMES" as "FULL" }), /OFF, NORMAL, FULL, EXTRA/);
    assert.throws(() => createSqliteStore({ path: ":memory:", busyTimeoutMs: -1 }), /busyTimeoutMs/);
  });

  it("records each migration once, and racing migrations on one file both succeed", async () => {
    const path = freshPath();
    const stores = [createSqliteStore({ path }), createSqliteStore({ path }), createSqliteStore({ path })];
    await Promise.all(stores.map((store) => store.migrate()));
    await stores[0]!.migrate();
    await Promise.all(stores.map((store) => store.close()));
    const raw = new DatabaseSync(path);
    const versions = raw.prepare("SELECT version FROM statek_migrations ORDER BY version").all();
    raw.close();
    assert.deepEqual(versions.map((row) => row["version"]), Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, index) => index + 1));
  });

  it("fails clearly on a schema newer than the code", async () => {
    const path = freshPath();
    const seed = createSqliteStore({ path });
    await seed.migrate();
    await seed.close();
    const raw = new DatabaseSync(path);
    raw.prepare("INSERT INTO statek_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(999, "from the future", 0);
    raw.close();
    const store = createSqliteStore({ path });
    const expected = new RegExp(`schema version 999.*up to ${SQLITE_SCHEMA_VERSION}`);
    await assert.rejects(store.migrate(), expected);
    await assert.rejects(store.getJob("any"), expected, "every call fails the same way");
    await store.close();
  });

  it("group-commits writes made in one tick into one transaction", async () => {
    const { database, executed } = recordingDatabase();
    const store = createSqliteStore({ path: "statek.db", database });
    await store.migrate();
    const begins = () => executed.filter((sql) => sql === "BEGIN IMMEDIATE").length;
    const jobs = Array.from({ length: 100 }, () => sampleJob());
    const beforeInserts = begins();
    await Promise.all(jobs.map((job) => store.insertJob(job, [], [])));
    assert.equal(begins() - beforeInserts, 1);
    const beforeCommits = begins();
    await Promise.all(jobs.map((job) => store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } })));
    assert.equal(begins() - beforeCommits, 1);
    assert.equal(executed.filter((sql) => sql === "COMMIT").length, begins());
    for (const job of jobs) assert.equal((await store.getJob(job.id))?.turns, 1);
    await store.close();
  });

  it("applies commits of one tick in call order", async () => {
    const store = createSqliteStore({ path: ":memory:" });
    const job = sampleJob();
    await store.insertJob(job, [], []);
    const steps = [0, 1, 2, 3].map((version) => store.commit({ id: job.id, expectedVersion: version, appendHistory: [sampleRecord(version)] }));
    await Promise.all(steps);
    assert.equal((await store.getJob(job.id))?.historyLength, 4);
    await store.close();
  });

  it("abandons a queued commit whose signal aborts before the flush", async () => {
    const store = createSqliteStore({ path: ":memory:" });
    const [kept, abandoned] = [sampleJob(), sampleJob()];
    await store.insertJob(kept, [], []);
    await store.insertJob(abandoned, [], []);
    const controller = new AbortController();
    const keep = store.commit({ id: kept.id, expectedVersion: 0, job: { turns: 1 } });
    const drop = store.commit({ id: abandoned.id, expectedVersion: 0, job: { turns: 1 } }, { signal: controller.signal });
    // Let both calls reach the queue (microtasks), but not the flush (setImmediate).
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    controller.abort(new Error("changed my mind"));
    await assert.rejects(drop, /changed my mind/);
    await keep;
    assert.equal((await store.getJob(kept.id))?.turns, 1);
    assert.deepEqual(await store.getJob(abandoned.id), abandoned);
    await store.close();
  });

  it("lets two processes commit to one file concurrently", async () => {
    const directory = mkdtempSync(join(root, "processes-"));
    const path = join(directory, "shared.db");
    const script = join(directory, "child.mjs");
    const storeUrl = pathToFileURL(fileURLToPath(new URL("./sqlite-store.ts", import.meta.url))).href;
    writeFileSync(script, CHILD_SCRIPT.replace("STORE_URL", JSON.stringify(storeUrl)));
    const run = promisify(execFile);
    // Both children start on a file that does not exist yet: they race to create and migrate it too.
    await Promise.all(["a", "b"].map((worker) => run(process.execPath, [script, path, worker, "a,b", "20"], { timeout: 20_000 })));
    const store = createSqliteStore({ path });
    for (const worker of ["a", "b"]) {
      const jobs = await store.listJobs({ role: worker, limit: 1000 });
      assert.equal(jobs.length, 20);
      for (const job of jobs) assert.deepEqual([job.version, job.turns, job.historyLength], [2, 2, 2]);
    }
    const shared = await store.getJob("shared");
    assert.equal(shared?.turns, 2 * 15, "every increment of the shared job landed exactly once");
    await store.close();
  });
});

/** Inserts `count` jobs of its own, waits for the other workers, steps each job twice, and increments a shared job 15 times, retrying on conflicts. */
const CHILD_SCRIPT = `
import { existsSync, writeFileSync } from "node:fs";
import { createSqliteStore } from STORE_URL;
const [path, worker, workers, count] = process.argv.slice(2);
const store = createSqliteStore({ path });
const job = (id, role) => ({ id, role, status: "READY", params: {}, metadata: {}, parentId: null, createdAt: Date.now(),
  updatedAt: Date.now(), version: 0, turns: 0, pendingSeq: null, historyLength: 0, exitStatus: null, error: null, usage: {}, state: {},
  wakeAt: null, cell: 0 });
try { await store.insertJob(job("shared", "shared"), [], []); } catch (error) { if (!/already exists/.test(error.message)) throw error; }
const ids = Array.from({ length: Number(count) }, (_, index) => worker + "-" + index);
await Promise.all(ids.map((id) => store.insertJob(job(id, worker), [], [])));
// A barrier, so that the steps below really overlap instead of running one process after the other.
writeFileSync(path + ".ready-" + worker, "");
while (!workers.split(",").every((name) => existsSync(path + ".ready-" + name))) await new Promise((go) => setTimeout(go, 2));
let conflicts = 0;
for (const version of [0, 1]) {
  await Promise.all(ids.map((id) => store.commit({ id, expectedVersion: version, job: { turns: version + 1 },
    appendHistory: [{ seq: version, kind: "console", at: Date.now(), data: { worker } }] })));
}
for (let increment = 0; increment < 15; increment++) {
  for (;;) {
    const shared = await store.getJob("shared");
    try { await store.commit({ id: "shared", expectedVersion: shared.version, job: { turns: shared.turns + 1 } }); break; }
    catch (error) { if (error.name !== "JobConflictError") throw error; conflicts++; }
  }
}
await store.close();
console.log(JSON.stringify({ worker, conflicts }));
`;

describe("openStore", () => {
  it("opens a migrated SQLite store for :memory: and for a path", async () => {
    const memory = await openStore(":memory:");
    assert.ok(memory instanceof SqliteStore);
    assert.equal(memory.supportsMultipleProcesses, false);
    await memory.close();
    const path = freshPath();
    const file = await openStore(path);
    assert.ok(existsSync(path), "the file and its directories exist once openStore resolves");
    await file.close();
  });

  it("migrates and returns a store instance as is", async () => {
    const store = createSqliteStore({ path: ":memory:" });
    assert.equal(await openStore(store), store);
    assert.deepEqual(await store.listJobs(), []);
    await store.close();
  });

  it("refuses PostgreSQL URLs clearly, and defaults to ./statek-data/statek.db", async () => {
    await assert.rejects(openStore("postgres://user@localhost/statek"), /PostgreSQL store is not available/);
    await assert.rejects(openStore("postgresql://localhost/statek"), /PostgreSQL store is not available/);
    assert.equal(DEFAULT_STORE_PATH, "./statek-data/statek.db");
  });
});
