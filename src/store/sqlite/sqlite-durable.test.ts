/**
 * SQLite-only cases of the durable-execution rows: the claim queries read the partial indexes (never the
 * waiting jobs), journal appends share the group commit with commits, a version-1 database upgrades in place,
 * and leases, due timers and stamps follow the configured clock.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { sampleJob } from "../store.suite.ts";
import type { SqliteDatabase } from "./sqlite-config.ts";
import { SQLITE_MIGRATIONS, applySqliteMigrations } from "./sqlite-migrations.ts";
import { createSqliteStore } from "./sqlite-store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-sqlite-durable-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const HOUR = 3_600_000;

/** A file connection that records the SQL it prepares and executes. */
function recordingDatabase(): { database: SqliteDatabase; raw: DatabaseSync; prepared: string[]; executed: string[] } {
  const raw = new DatabaseSync(join(root, `recorded-${++files}.db`));
  const prepared: string[] = [];
  const executed: string[] = [];
  const database: SqliteDatabase = {
    exec: (sql) => (executed.push(sql), raw.exec(sql)),
    prepare: (sql) => (prepared.push(sql), raw.prepare(sql)),
    close: () => raw.close(),
  };
  return { database, raw, prepared, executed };
}

describe("SqliteStore durable rows", () => {
  it("claims and nextClaim read the partial indexes, never a scan of the jobs", async () => {
    const { database, raw, prepared } = recordingDatabase();
    const store = createSqliteStore({ path: "statek.db", database });
    const now = Date.now();
    // Enough waiting jobs that the planner would prefer a scan if it could not use the indexes.
    for (let index = 0; index < 500; index++) {
      await store.insertJob(sampleJob({ status: "SUSPENDED", wakeAt: index % 2 ? null : now + HOUR + index }), [], []);
    }
    await store.insertJob(sampleJob({ status: "READY" }), [], []);
    raw.exec("ANALYZE");
    await store.claimRunnable("worker", HOUR, 10);
    await store.claimRunnable("worker", HOUR, 10, { roles: ["assistant", "planner"] });
    await store.nextClaim();
    await store.nextClaim({ roles: ["assistant"] });
    const queries = [...new Set(prepared.filter((sql) => /FROM jobs INDEXED BY/.test(sql)))];
    assert.equal(queries.length, 6, "two claim queries with and without roles, nextClaim with and without");
    for (const sql of queries) {
      const plan = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all().map((row) => String(row["detail"]));
      const indexes = sql.includes("lease_until) FROM") ? ["jobs_runnable", "jobs_wake_at", "jobs_lease_owner"]
        : [sql.includes("IN ('READY'") ? "jobs_runnable" : "jobs_wake_at"];
      for (const index of indexes) assert.ok(plan.some((detail) => detail.includes(`INDEX ${index}`)), `${sql}\nuses ${index}: ${plan.join(" | ")}`);
      assert.ok(!plan.some((detail) => /^SCAN jobs$/.test(detail) || /USE TEMP B-TREE/.test(detail)), `no scan, no sort: ${plan.join(" | ")}`);
    }
    await store.close();
  });

  it("journal appends, future creations and commits of one tick share one transaction", async () => {
    const { database, executed } = recordingDatabase();
    const store = createSqliteStore({ path: "statek.db", database });
    const jobs = Array.from({ length: 50 }, () => sampleJob({ status: "STARTED" }));
    await Promise.all(jobs.map((job) => store.insertJob(job, [], [])));
    const leases = await Promise.all(jobs.map((job) => store.claimJob(job.id, "worker", HOUR)));
    const fences = leases.map((lease) => ({ owner: lease!.owner, epoch: lease!.epoch }));
    const begins = () => executed.filter((sql) => sql === "BEGIN IMMEDIATE").length;
    const before = begins();
    await Promise.all(jobs.flatMap((job, index) => [
      store.appendJournal(job.id, fences[index]!, 0, [{ index: 0, data: "intent" }]),
      store.createFutures(job.id, fences[index]!, [{ key: `${job.id}:0:1`, jobId: job.id, kind: "timer", wakeAt: 1, data: null }]),
      store.commit({ id: job.id, expectedVersion: 0, job: { cell: 1 }, clearJournal: true, fence: fences[index]! }),
    ]));
    assert.equal(begins() - before, 1, "150 writes, one transaction");
    for (const job of jobs) assert.equal(await store.getJournal(job.id), null, "in call order: the commit cleared the append");
    await store.close();
  });

  it("upgrades a version-1 database in place: its jobs keep everything and gain the new fields", async () => {
    const path = join(root, `upgrade-${++files}.db`);
    const raw = new DatabaseSync(path);
    applySqliteMigrations(raw, { path, migrations: SQLITE_MIGRATIONS.slice(0, 1) });
    raw.prepare(`INSERT INTO jobs (id, role, status, params, metadata, parent_id, created_at, updated_at, version, turns, pending_seq,
      history_length, exit_status, error, usage, state) VALUES ('old', 'assistant', 'STARTED', '{"a":1}', '{}', NULL, 5, 6, 2, 1, NULL, 0, NULL,
      NULL, '{}', '{}')`).run();
    raw.close();
    const store = createSqliteStore({ path });
    assert.deepEqual(await store.getJob("old"), sampleJob({
      id: "old", status: "STARTED", params: { a: 1 }, createdAt: 5, updatedAt: 6, version: 2, turns: 1, wakeAt: null, cell: 0,
    }));
    assert.equal(await store.getLease("old"), null);
    assert.deepEqual((await store.claimRunnable("worker", HOUR, 5)).map((lease) => [lease.jobId, lease.epoch]), [["old", 1]]);
    await store.close();
  });

  it("upgrades a version-6 database: a job's variables become versions of its turn then, and it forks from there on", async () => {
    const path = join(root, `upgrade-${++files}.db`);
    const raw = new DatabaseSync(path);
    applySqliteMigrations(raw, { path, migrations: SQLITE_MIGRATIONS.slice(0, 6) });
    raw.prepare(`INSERT INTO jobs (id, role, status, params, metadata, parent_id, created_at, updated_at, version, turns, pending_seq,
      history_length, exit_status, error, usage, state) VALUES ('old', 'assistant', 'DONE', '{}', '{}', NULL, 5, 6, 4, 2, NULL, 0, NULL,
      NULL, '{}', '{}')`).run();
    raw.prepare("INSERT INTO job_variables (job_id, name, blob, position) VALUES ('old', 'x', '7', 0)").run();
    raw.close();
    const store = createSqliteStore({ path });
    const fork = (turn: number) => ({ ...sampleJob({ turns: turn, historyLength: 0 }), forkedFrom: { jobId: "old", turn } });
    const early = fork(1);
    await assert.rejects(store.insertFork({ job: early, history: [], putVariables: [] }), /keeps its variables' versions from turn 2 on/);
    const atUpgrade = fork(2);
    await store.insertFork({ job: atUpgrade, history: [], putVariables: [] });
    assert.deepEqual(await store.getVariables(atUpgrade.id), [{ name: "x", blob: "7", position: 0 }]);
    assert.deepEqual((await store.getJob("old"))!.forkedFrom, undefined);
    await store.close();
  });

  it("leases, due timers and the times it stamps follow the configured clock", async () => {
    let now = 1_000_000;
    const store = createSqliteStore({ path: ":memory:", clock: () => now });
    const job = sampleJob({ status: "SUSPENDED", wakeAt: 1_000_500 });
    await store.insertJob(job, [], []);
    assert.deepEqual(await store.claimRunnable("worker", 1_000, 5), [], "not due yet");
    assert.deepEqual(await store.nextClaim(), { inMs: 500, leased: false }, "by the store's clock");
    now = 1_000_500;
    const [lease] = await store.claimRunnable("worker", 1_000, 5);
    assert.deepEqual(lease, { jobId: job.id, owner: "worker", epoch: 1, until: 1_001_500 });
    now = 1_001_499;
    assert.equal(await store.claimJob(job.id, "other", 1_000), null, "live until 1_001_500");
    now = 1_001_500;
    await store.commit({ id: job.id, expectedVersion: 0, job: { status: "STARTED" }, events: [{ kind: "step-end", data: null }] });
    assert.equal((await store.getJob(job.id))?.updatedAt, 1_001_500);
    assert.deepEqual((await store.readEvents()).map((event) => event.at), [1_000_000, 1_001_500], "the submit, then the commit");
    assert.equal((await store.settleFuture("k", { state: "resolved", value: 1, door: "application" })).future.settledAt, 1_001_500);
    assert.deepEqual(await store.claimJob(job.id, "other", 1_000), { jobId: job.id, owner: "other", epoch: 2, until: 1_002_500 }, "expired at until");
    await store.close();
  });

  it("rejects a clock that is not a function", () => {
    assert.throws(() => createSqliteStore({ path: ":memory:", clock: 5 as unknown as () => number }), /clock must be a function/);
  });
});
