/**
 * Durability under `kill -9`: a child process runs 300 jobs whose cells loop over slow
 * side-effecting tools writing to the application's own SQLite table; this test kills it with SIGKILL at
 * random moments (after a random number of finished jobs, while the other lanes are mid-cell) at least ten
 * times and starts it again, until every job is DONE. Then: no effect of the
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

/**
 * Runs the fixture; kills it once it has finished `killAfterJobs` jobs (while its other lanes are mid-cell), unless
 * it finished everything first. Says whether it finished, and how many jobs it finished.
 */
function runChild(args: string[], killAfterJobs?: number): Promise<{ finished: boolean; jobsDone: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let errors = "";
    const jobsDone = () => output.split("\n").filter((line) => line === "done").length;
    child.stdout.on("data", (chunk) => {
      output += chunk;
      // Counted in jobs, not milliseconds: however fast steps get, the kill lands while work remains.
      if (killAfterJobs !== undefined && jobsDone() >= killAfterJobs) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk) => (errors += chunk));
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") return resolve({ finished: false, jobsDone: jobsDone() });
      if (code !== 0) return reject(new Error(`the worker exited with ${code}: ${errors.slice(-2000)}`));
      resolve({ finished: output.includes("finished"), jobsDone: jobsDone() });
    });
  });
}

describe("durability under kill -9", () => {
  it(`${JOBS} jobs, at least ${KILLS} SIGKILLs: every job DONE, no duplicated or silently repeated effect, no lost variable`, { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-chaos-"));
    try {
      const store = join(dir, "statek.db");
      const appDb = join(dir, "app.db");
      assert.equal((await runChild([store, appDb, "submit", String(JOBS)])).finished, true);
      let kills = 0;
      let jobsDone = 0;
      for (let round = 0; ; round++) {
        // Each kill lands after a random share of the jobs left (so that ten of them fit), while the worker's other
        // lanes are in the middle of their cells' effects.
        const share = Math.max(1, Math.floor((JOBS - jobsDone) / (KILLS - kills + 1)));
        const run = await runChild([store, appDb, "run"], kills < KILLS ? 1 + Math.floor(Math.random() * share) : undefined);
        jobsDone += run.jobsDone;
        const finished = run.finished;
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
