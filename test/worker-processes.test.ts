/**
 * The worker as a service, in real processes: many jobs sleeping twice finish under one worker (wake
 * lateness reported); two worker processes share one SQLite file without committing a step twice or failing a
 * job by a conflict; a worker killed with SIGKILL while holding leases is taken over at once by a worker started
 * after it on the same machine, which proves it gone (no such process) instead of waiting for its leases.
 * The sizes of the issue (2,000 and 200 jobs) run with STATEK_FULL_WORKER_TESTS=1; by default they are smaller
 * (100 each), to keep the suite's time reasonable on a shared 2-core machine.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { Statek } from "../src/index.ts";
import { runWorkerChild as run, startWorkerChild as start, workerChildStats as statsOf } from "./support/worker-children.ts";

const FULL = process.env.STATEK_FULL_WORKER_TESTS === "1";
/** Steps at once in the single-worker test (STATEK_WORKER_CONCURRENCY overrides). */
const CONCURRENCY = Number(process.env.STATEK_WORKER_CONCURRENCY ?? 20);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), "statek-workers-"));
  return { dir, store: join(dir, "statek.db"), app: join(dir, "app.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Each job noted 1 and 2 exactly once (no step ran its effects twice). */
function checkNotes(app: string, ids: string[]): void {
  const db = new DatabaseSync(app);
  try {
    const rows = db.prepare("SELECT job, i, count(*) AS n FROM notes GROUP BY job, i").all() as Array<{ job: string; i: number; n: number }>;
    const byJob = new Map<string, string>();
    for (const row of rows) byJob.set(row.job, `${byJob.get(row.job) ?? ""}${row.i}×${row.n} `);
    for (const id of ids) assert.equal(byJob.get(id), "1×1 2×1 ", `job ${id}: each note exactly once`);
  } finally {
    db.close();
  }
}

describe("workers in real processes", () => {
  const sleepers = FULL ? 2_000 : 100;
  const shared = FULL ? 200 : 100;
  it(`${sleepers} jobs each sleeping twice (50–500 ms) finish under one worker; wake lateness reported`, { timeout: 900_000 }, async () => {
    const env = setUp();
    try {
      await run([env.store, env.app, "submit", String(sleepers), "sleeper"]);
      const started = Date.now();
      const worker = await run([env.store, env.app, "work", String(CONCURRENCY), "30000", "exit-when-done"]);
      const seconds = (Date.now() - started) / 1000;
      const statek = await Statek.open({ store: env.store });
      try {
        const jobs = await statek.listJobs({ limit: sleepers + 1 });
        assert.equal(jobs.length, sleepers);
        assert.deepEqual(jobs.filter((job) => job.status !== "DONE").map((job) => `${job.id} ${job.status} ${job.error ?? ""}`), []);
        const lateness: number[] = [];
        for (const job of jobs) lateness.push(...((await statek.getJob(job.id))!.exitStatus as { late: number[] }).late);
        checkNotes(env.app, jobs.map((job) => job.id));
        const stats = statsOf(worker);
        console.log(
          `# ${sleepers} jobs × 2 sleeps under one worker (maxConcurrency ${CONCURRENCY}): ${seconds.toFixed(1)} s, ${stats.steps} steps; ` +
          `wake lateness p50 ${percentile(lateness, 50)} ms, p99 ${percentile(lateness, 99)} ms, max ${Math.max(...lateness)} ms`,
        );
      } finally {
        await statek.close();
      }
    } finally {
      env.remove();
    }
  });

  it(`two worker processes on one SQLite file, ${shared} jobs: each step committed once, none FAILED by a conflict`, { timeout: 600_000 }, async () => {
    const env = setUp();
    try {
      await run([env.store, env.app, "submit", String(shared), "sleeper"]);
      const [a, b] = [start([env.store, env.app, "work", "20", "30000", "exit-when-done"]), start([env.store, env.app, "work", "20", "30000", "exit-when-done"])];
      const [exitA, exitB] = await Promise.all([a.exited, b.exited]);
      assert.equal(exitA.code, 0, a.output());
      assert.equal(exitB.code, 0, b.output());
      const [statsA, statsB] = [statsOf(a), statsOf(b)];
      const statek = await Statek.open({ store: env.store });
      try {
        const jobs = await statek.listJobs({ limit: shared + 1 });
        assert.deepEqual(jobs.filter((job) => job.status !== "DONE").map((job) => `${job.id} ${job.status} ${job.error ?? ""}`), []);
        checkNotes(env.app, jobs.map((job) => job.id));
        // One commit per suspension (a sleep of 100 ms or more) plus the last: a step committed twice would show as more.
        let expected = 0;
        for (const job of jobs) {
          const { sleeps } = (await statek.getJob(job.id))!.exitStatus as { sleeps: number[] };
          const commits = 1 + sleeps.filter((ms) => ms >= 100).length;
          assert.equal((await statek.store.getJob(job.id))!.version, commits, `job ${job.id}: one commit per step`);
          expected += commits;
        }
        assert.equal(jobs.length, shared);
        assert.equal(statsA.steps + statsB.steps, expected, "the workers committed exactly the steps the jobs show, none twice");
        assert.equal(statsA.failed + statsB.failed, 0);
        console.log(`# two workers: ${statsA.steps} and ${statsB.steps} steps; step errors (lost races, not commits) ${statsA.stepErrors + statsB.stepErrors}`);
      } finally {
        await statek.close();
      }
    } finally {
      env.remove();
    }
  });

  it("kill -9 of a worker holding leases: a worker started after it on this machine takes the jobs over at once and finishes them", { timeout: 600_000 }, async () => {
    const env = setUp();
    // Far longer than the test may take: the jobs must not wait for the dead worker's leases to expire.
    const leaseMs = 120_000;
    try {
      await run([env.store, env.app, "submit", "20", "slow", String(leaseMs)]);
      const first = start([env.store, env.app, "work", "20", String(leaseMs)]);
      await first.printed("claiming");
      // Wait until the first worker holds leases with steps in flight (a note written, the second not yet).
      const statek = await Statek.open({ store: env.store });
      try {
        let held: string[] = [];
        for (let tries = 0; held.length === 0; tries++) {
          assert.ok(tries < 600, "the first worker claims jobs");
          await new Promise((resolve) => setTimeout(resolve, 50));
          const jobs = await statek.listJobs({ limit: 21 });
          const leases = await Promise.all(jobs.map((job) => statek.store.getLease(job.id)));
          held = leases.filter((lease) => lease !== null && lease.until > Date.now()).map((lease) => lease!.jobId);
        }
        first.process.kill("SIGKILL");
        await first.exited;
        const killedAt = Date.now();
        const second = start([env.store, env.app, "work", "20", String(leaseMs), "exit-when-done"]);
        const { code } = await second.exited;
        assert.equal(code, 0, second.output());
        const finishedIn = Date.now() - killedAt;
        assert.ok(finishedIn < leaseMs / 2, `finished ${finishedIn} ms after the kill, long before the leases expire`);
        const gone = second.output().match(new RegExp(`^owner-gone \\S+:${first.process.pid}:\\S+ (\\d+)$`, "m"));
        assert.ok(gone, `the second worker ended the dead worker's leases (${second.output().slice(-500)})`);
        assert.ok(Number(gone[1]) >= held.length, `every lease it held (${gone[1]} ended, ${held.length} seen held)`);
        const jobs = await statek.listJobs({ limit: 21 });
        assert.deepEqual(jobs.map((job) => job.status), Array(20).fill("DONE"));
        // Each job noted 1 and 2; a note in flight when the first worker died may be missing (in doubt) but none is doubled.
        const db = new DatabaseSync(env.app);
        const doubled = db.prepare("SELECT job, i, count(*) AS n FROM notes GROUP BY job, i HAVING n > 1").all();
        db.close();
        assert.deepEqual(doubled, [], "no note written twice");
        console.log(`# kill -9 with ${held.length} leases held: the second worker finished all 20 jobs ${finishedIn} ms after the kill (leaseMs ${leaseMs})`);
      } finally {
        await statek.close();
      }
    } finally {
      env.remove();
    }
  });
});
