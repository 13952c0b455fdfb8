/**
 * Worker processes (`statek.worker`) on one PostgreSQL database, through the same child as the SQLite
 * worker tests (test/fixtures/worker-process.ts, given a `postgres://…?schema=…` store):
 * - three workers, jobs that suspend twice — a durable sleep, then `waitForMessage()` with the message pushed
 *   from this test process once the job waits for it: every job DONE with its message, each step committed
 *   exactly once (every job's version is 4 — three steps and the push — and the workers' step counters add up
 *   to three per job),
 *   each note (a non-idempotent effect) written exactly once;
 * - `kill -9` of a worker holding leases, each job's step inside an idempotent call between two notes: a worker
 *   already running proves it gone (no such process on this machine) and takes the jobs over at once, without
 *   waiting for the leases to expire, and finishes them — the first note replayed from
 *   the journal, the idempotent call made again, the second note written once; the time from the kill to all
 *   DONE is printed.
 * The notes live in a `notes` table in the test's PostgreSQL schema (test/fixtures/app-notes.ts): that is where
 * an application running workers on PostgreSQL keeps its tables, and the insert is asynchronous, so no worker's
 * event loop blocks on another process's lock as it would on a shared SQLite file.
 * 1,000 jobs run with STATEK_FULL_WORKER_TESTS=1; by default 200, to keep the suite's time reasonable on a
 * shared 2-core machine (at 1,000 it once caught a note written twice: see
 * docs/decisions/2026-12-04-several-workers-on-one-postgresql.md). Skipped
 * (with the reason printed) when no server is configured, never in CI.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Statek } from "../src/index.ts";
import { openAppNotes } from "./fixtures/app-notes.ts";
import { POSTGRES_URL, freshSchema, postgresSkipReason } from "./support/postgres-server.ts";
import { runWorkerChild as run, startWorkerChild as start, workerChildStats as statsOf, type WorkerChild } from "./support/worker-children.ts";

const FULL = process.env.STATEK_FULL_WORKER_TESTS === "1";
const OPEN = ["READY", "WARMING_UP", "STARTED", "SUSPENDED"] as const;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("worker processes on one PostgreSQL database", { skip: postgresSkipReason() ?? false }, () => {
  const jobs = FULL ? 1_000 : 200;

  it(`three workers, ${jobs} jobs that sleep and wait for a pushed message: all DONE, each step committed once, each note written once`, { timeout: 600_000 }, async () => {
    const url = `${POSTGRES_URL}?schema=${freshSchema()}`;
    await run([url, url, "submit", String(jobs), "waiter"]);
    const workers = [0, 1, 2].map(() => start([url, url, "work", "20", "30000", "exit-when-done"]));
    const statek = await Statek.open({ store: url });
    const started = Date.now();
    try {
      // Push each job its message once it waits for one (suspended without a timer): a client in another
      // process, as a web handler would be. Polling is this test's own observation; the workers never scan.
      const pushed = new Set<string>();
      while (pushed.size < jobs) {
        assert.ok(Date.now() - started < 500_000, `every job waits for its message in time (${pushed.size} of ${jobs} did)`);
        const waiting = (await statek.store.listJobs({ status: ["SUSPENDED"], limit: jobs + 1 })).filter((job) => job.wakeAt === null && !pushed.has(job.id));
        for (const job of waiting) {
          await statek.pushMessage(job.id, `hello ${job.id}`);
          pushed.add(job.id);
        }
        if (waiting.length === 0) await pause(50);
      }
      const exits = await Promise.all(workers.map((worker) => worker.exited));
      exits.forEach((exit, index) => assert.equal(exit.code, 0, workers[index]!.output()));
      const seconds = (Date.now() - started) / 1000;

      const rows = await statek.store.listJobs({ limit: jobs + 1 });
      assert.equal(rows.length, jobs);
      assert.deepEqual(rows.filter((job) => job.status !== "DONE").map((job) => `${job.id} ${job.status} ${job.error ?? ""}`), []);
      for (const job of rows) {
        assert.deepEqual((await statek.getJob(job.id))!.exitStatus, { message: `hello ${job.id}` }, `job ${job.id} got its own message`);
        // Three step commits (suspended on the sleep, suspended on the message, DONE) and the push's own commit.
        // A step committed twice would show as more.
        assert.equal(job.version, 4, `job ${job.id}: one commit per step`);
      }
      const stats = workers.map(statsOf);
      assert.equal(stats.reduce((sum, { steps }) => sum + steps, 0), jobs * 3, `the workers' steps (${stats.map(({ steps }) => steps).join(" + ")}) are exactly the commits the jobs show`);
      assert.equal(stats.reduce((sum, { failed }) => sum + failed, 0), 0);
      assert.ok(stats.every(({ steps }) => steps > 0), `every worker stepped jobs (${stats.map(({ steps }) => steps).join(", ")})`);

      const notes = await openAppNotes(url, { create: false });
      try {
        const counts = await notes.counts();
        const doubled = counts.filter(({ n }) => n !== 1);
        // What the job went through, for whoever looks into a doubled note: its history and the workers' errors.
        const histories = await Promise.all(doubled.map(async ({ job }) => JSON.stringify((await statek.getJob(job))!.history).slice(0, 4000)));
        const errors = workers.map((worker) => worker.output().split("\n").filter((line) => /error|stall|cancel/i.test(line)).slice(0, 20).join("\n"));
        assert.deepEqual(doubled, [], `no note written twice\n${histories.join("\n")}\n${errors.join("\n")}`);
        assert.equal(counts.length, jobs * 2, "notes 1 and 2 of every job");
      } finally {
        await notes.close();
      }
      console.log(`# three workers, ${jobs} jobs × 3 steps: ${seconds.toFixed(1)} s; steps per worker ${stats.map(({ steps }) => steps).join(", ")}; step errors (lost races, not commits) ${stats.reduce((sum, { stepErrors }) => sum + stepErrors, 0)}`);
    } finally {
      for (const worker of workers) worker.process.kill("SIGKILL");
      await statek.close();
    }
  });

  it("kill -9 of a worker holding leases: another worker of this machine takes its jobs over at once and finishes them, no note doubled", { timeout: 300_000 }, async () => {
    const url = `${POSTGRES_URL}?schema=${freshSchema()}`;
    // Far longer than the takeover may take: it must not wait for the leases to expire (the dead worker was of
    // this machine, so the second proves it gone).
    const leaseMs = 60_000;
    const total = 20;
    await run([url, url, "submit", String(total), "relay", String(leaseMs)]);
    // The first worker's `pause` lasts long enough to be killed in it; the second's is instant.
    const first = start([url, url, "work", String(total), String(leaseMs)], { PAUSE_MS: "60000" });
    let second: WorkerChild | undefined;
    const statek = await Statek.open({ store: url });
    const notes = await openAppNotes(url, { create: false });
    try {
      await first.printed("claiming");
      const firstPid = String(first.process.pid);
      const heldByFirst = (lease: { owner: string } | null) => lease !== null && lease.owner.split(":").includes(firstPid);
      // Every job's step in flight in the first worker, inside `pause` (after note 1, before note 2).
      for (let tries = 0; (await notes.counts()).filter(({ i }) => i === 0).length < total; tries++) {
        assert.ok(tries < 1_200, `the first worker starts every job (${first.output().slice(-1000)})`);
        await pause(50);
      }
      // The second worker runs (and finds nothing to claim) before the kill: what follows is the takeover.
      second = start([url, url, "work", String(total), String(leaseMs), "exit-when-done"]);
      await second.printed("claiming");
      const leases = await Promise.all((await statek.listJobs({ limit: total + 1 })).map((job) => statek.store.getLease(job.id)));
      assert.ok(leases.every(heldByFirst), "the first worker holds every job's lease (renewed while it pauses)");
      first.process.kill("SIGKILL");
      await first.exited;
      const killedAt = Date.now();
      for (;;) {
        assert.ok(Date.now() - killedAt < 120_000, "the jobs finish after the takeover");
        if ((await statek.listJobs({ status: [...OPEN], limit: 1 })).length === 0) break;
        await pause(25);
      }
      const doneAt = Date.now();
      const expiry = Math.max(...leases.map((lease) => lease!.until));
      const { code } = await second.exited;
      assert.equal(code, 0, second.output());

      const rows = await statek.store.listJobs({ limit: total + 1 });
      assert.deepEqual(rows.filter((job) => job.status !== "DONE").map((job) => `${job.id} ${job.status} ${job.error ?? ""}`), []);
      // The dead worker committed nothing (its steps were in flight): the second committed each job's one step.
      assert.equal(statsOf(second).steps, total, "the second worker committed every job once");
      for (const job of rows) assert.equal(job.version, 1, `job ${job.id}: one commit`);
      const counts = await notes.counts();
      const secondPid = String(second.process.pid);
      for (const job of rows) {
        const of = (i: number) => counts.find((count) => count.job === job.id && count.i === i);
        // Note 1 was journaled before the kill: replayed, not written again. Note 2 was written by the second worker.
        assert.deepEqual([of(1)?.n, of(1)?.pids], [1, firstPid], `job ${job.id}: note 1 once, by the first worker`);
        assert.deepEqual([of(2)?.n, of(2)?.pids], [1, secondPid], `job ${job.id}: note 2 once, by the second worker`);
        // The idempotent call in flight at the kill was called again by the second worker (same idempotency key).
        assert.deepEqual(of(0)?.pids.split(",").sort(), [firstPid, secondPid].sort(), `job ${job.id}: pause called by both workers`);
      }
      assert.ok(doneAt < expiry, `every job was done ${doneAt - killedAt} ms after the kill, before the dead worker's leases expired (${expiry - killedAt} ms)`);
      assert.match(second.output(), new RegExp(`^owner-gone \\S+:${firstPid}:\\S+ ${total}$`, "m"), "the second worker ended all its leases");
      console.log(
        `# kill -9 with ${total} leases held (leaseMs ${leaseMs}): all ${total} jobs DONE ${doneAt - killedAt} ms after the kill ` +
        `(the last lease expired ${Math.max(0, expiry - killedAt)} ms after it)`,
      );
    } finally {
      first.process.kill("SIGKILL");
      second?.process.kill("SIGKILL");
      await notes.close();
      await statek.close();
    }
  });
});
