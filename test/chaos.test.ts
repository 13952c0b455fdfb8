/**
 * Durability under `kill -9` (issue 9): a child process runs 300 jobs whose cells loop over slow
 * side-effecting tools writing to the application's own SQLite table; this test kills it with SIGKILL at
 * random moments at least ten times and starts it again, until every job is DONE. Then: no effect of the
 * idempotent tool twice (one row per idempotency key), no silent duplicate of the other (at most one row per
 * call, and every missing one matches an `InDoubtError` the code was shown), and no lost variables (each
 * job's total is what its recorded effects add up to).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { Statek } from "../src/index.ts";

const fixture = join(import.meta.dirname, "fixtures/chaos-worker.ts");
const JOBS = 300;
const KILLS = 10;

/** Runs the fixture; kills it after `killAfterMs` unless it finished first. True when it finished. */
function runChild(args: string[], killAfterMs?: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (errors += chunk));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("exit", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === "SIGKILL") return resolve(false);
      if (code !== 0) return reject(new Error(`the worker exited with ${code}: ${errors.slice(-2000)}`));
      resolve(output.includes("finished"));
    });
  });
}

describe("durability under kill -9", () => {
  it(`${JOBS} jobs, at least ${KILLS} SIGKILLs: every job DONE, no duplicated or silently repeated effect, no lost variable`, { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-chaos-"));
    try {
      const store = join(dir, "statek.db");
      const appDb = join(dir, "app.db");
      assert.equal(await runChild([store, appDb, "submit", String(JOBS)]), true);
      let kills = 0;
      for (let round = 0; ; round++) {
        // Kills land while the worker runs jobs: it takes about a second to start, and a second more to take over
        // the leases the killed one held (leaseMs 1 s).
        const finished = await runChild([store, appDb, "run"], kills < KILLS ? 1_500 + Math.random() * 2_000 : undefined);
        if (!finished) kills++;
        else if (kills >= KILLS) break;
        else assert.fail(`the jobs all finished after only ${kills} SIGKILLs: the kills must land while work remains`);
        assert.ok(round < 60, "the jobs finish");
      }

      const statek = await Statek.open({ store });
      const app = new DatabaseSync(appDb);
      try {
        const jobs = await statek.listJobs({ limit: JOBS + 10 });
        assert.equal(jobs.length, JOBS);
        let doubted = 0;
        for (const summary of jobs) {
          const job = (await statek.getJob(summary.id))!;
          assert.equal(job.status, "DONE", `${job.id}: ${job.error ?? ""}\n${job.console.join("\n")}`);
          const { total, doubts } = job.exitStatus as { total: number; doubts: number[] };
          doubted += doubts.length;
          const payments = app.prepare("SELECT i, COUNT(*) AS n FROM payments WHERE job = ? GROUP BY i").all(job.id) as Array<{ i: number; n: number }>;
          assert.deepEqual(payments.map((row) => [row.i, row.n]), [[0, 1], [1, 1], [2, 1]], `${job.id}: one payment row per call, keyed by its idempotency key`);
          const notes = app.prepare("SELECT i, COUNT(*) AS n FROM notes WHERE job = ? GROUP BY i").all(job.id) as Array<{ i: number; n: number }>;
          for (const row of notes) assert.equal(row.n, 1, `${job.id}: note ${row.i} written ${row.n} times`);
          const written = new Set(notes.map((row) => row.i));
          for (let i = 0; i < 3; i++) if (!written.has(i)) assert.ok(doubts.includes(i), `${job.id}: note ${i} is missing but the code was not told it was in doubt`);
          const expected = [0, 1, 2].reduce((sum, i) => sum + i + (doubts.includes(i) ? 0 : 10 * i), 0);
          assert.equal(total, expected, `${job.id}: the total the code kept`);
        }
        const calls = (app.prepare("SELECT SUM(calls) AS n FROM payments").get() as { n: number }).n;
        console.log(`# chaos: ${kills} kills, ${JOBS} jobs DONE, ${doubted} in-doubt calls shown to the code, ${calls - 3 * JOBS} idempotent calls made again`);
      } finally {
        app.close();
        await statek.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
