/**
 * Agent events across real processes (test/fixtures/agent-events-process.ts): events pushed by a third process
 * become exactly one job each
 * - with two worker processes taking them at once (each event's `n` is the exit value of exactly one job, and
 *   both workers' counts add up to the events pushed);
 * - across a `kill -9` of the worker while it is making jobs of them: a worker started after it makes the rest,
 *   and no event is lost or made twice (the event and its job are one transaction).
 * On a SQLite file always, and on PostgreSQL when a server is configured (`npm run test:pg`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Statek } from "../src/index.ts";
import { POSTGRES_URL, freshSchema, postgresSkipReason } from "./support/postgres-server.ts";
import { runWorkerChild, startWorkerChild, type WorkerChild } from "./support/worker-children.ts";

const FIXTURE = join(import.meta.dirname, "fixtures/agent-events-process.ts");
const EVENTS = process.env.STATEK_FULL_WORKER_TESTS === "1" ? 1_000 : 100;

const start = (args: string[]) => startWorkerChild(args, {}, FIXTURE);
const run = (args: string[]) => runWorkerChild(args, FIXTURE);
const madeBy = (child: WorkerChild) => [...child.stdout().matchAll(/^made (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);

/** Every event 0 … count − 1 is the exit value of exactly one DONE job, and none is queued. */
async function checkOneJobPerEvent(store: string, count: number): Promise<void> {
  const statek = await Statek.open({ store });
  try {
    const jobs = await statek.listJobs({ role: "ev", limit: count * 2 });
    assert.deepEqual(jobs.filter((job) => job.status !== "DONE").map((job) => `${job.id} ${job.status} ${job.error ?? ""}`), []);
    const exits = (await Promise.all(jobs.map(async (job) => (await statek.getJob(job.id))!.exitStatus as number))).sort((a, b) => a - b);
    assert.deepEqual(exits, Array.from({ length: count }, (_, n) => n), "one job per event: none lost, none doubled");
    assert.equal((await statek.agentHealth("ev")).queuedEvents, 0);
  } finally {
    await statek.close();
  }
}

const STORES: Array<{ name: string; skip: string | false; store: () => { path: string; remove(): void } }> = [
  {
    name: "a SQLite file",
    skip: false,
    store: () => {
      const dir = mkdtempSync(join(tmpdir(), "statek-agent-events-"));
      return { path: join(dir, "statek.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  { name: "PostgreSQL", skip: postgresSkipReason() ?? false, store: () => ({ path: `${POSTGRES_URL}?schema=${freshSchema()}`, remove: () => {} }) },
];

for (const { name, skip, store } of STORES) {
  describe(`agent events across processes on ${name}`, { skip }, () => {
    it(`two worker processes, ${EVENTS} events pushed by a third: one job per event`, { timeout: 300_000 }, async () => {
      const { path, remove } = store();
      try {
        await run([path, "push", "0"]); // migrates the store before the workers race to
        const workers = [start([path, "work", "5", String(EVENTS)]), start([path, "work", "5", String(EVENTS)])];
        await Promise.all(workers.map((worker) => worker.printed("claiming")));
        await run([path, "push", String(EVENTS)]);
        const exits = await Promise.all(workers.map((worker) => worker.exited));
        exits.forEach((exit, index) => assert.equal(exit.code, 0, workers[index]!.output()));
        assert.equal(madeBy(workers[0]!) + madeBy(workers[1]!), EVENTS, "the workers made one job per event between them");
        console.log(`# ${name}: the two workers made ${madeBy(workers[0]!)} and ${madeBy(workers[1]!)} jobs`);
        await checkOneJobPerEvent(path, EVENTS);
      } finally {
        remove();
      }
    });

    it(`kill -9 of a worker making jobs of ${EVENTS} events: a worker started after it makes the rest, none lost or doubled`, { timeout: 300_000 }, async () => {
      const { path, remove } = store();
      try {
        await run([path, "push", String(EVENTS)]);
        const first = start([path, "work", "3"]);
        await first.printed("made");
        first.process.kill("SIGKILL");
        const { signal } = await first.exited;
        assert.equal(signal, "SIGKILL");
        const before = madeBy(first);
        assert.ok(before < EVENTS, `the first worker was killed before it made every job (${before})`);
        const second = start([path, "work", "3", String(EVENTS)]);
        const { code } = await second.exited;
        assert.equal(code, 0, second.output());
        console.log(`# ${name}: ${before} jobs (or more, unreported) made before the kill, ${madeBy(second)} after`);
        await checkOneJobPerEvent(path, EVENTS);
      } finally {
        remove();
      }
    });
  });
}
