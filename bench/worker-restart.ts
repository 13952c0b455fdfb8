/**
 * bench/worker-restart: `kill -9` of a worker with 1,000 jobs in flight (each in the middle of a step, inside
 * an idempotent tool call), then a new worker process: the time from its start until every job has committed a
 * step again, and when within it the new worker ended the dead one's leases (it proves it gone: no such process
 * on this machine), which the default leaseMs (30 s) would otherwise make it wait for. Real processes
 * (test/fixtures/worker-process.ts) on one SQLite file; median of STATEK_BENCH_RUNS runs (default 3).
 *
 * Run: `npm run bench -- worker-restart` (STATEK_BENCH_JOBS, default 1,000).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const JOBS = Number(process.env.STATEK_BENCH_JOBS ?? 1_000);
const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
/** The default `leaseMs`: what a restart would wait without proving the dead worker gone. */
const LEASE_MS = 30_000;
const fixture = join(import.meta.dirname, "../test/fixtures/worker-process.ts");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function child(args: string[], env: Record<string, string> = {}) {
  const process_ = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  process_.stdout.on("data", (chunk) => (output += chunk));
  process_.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => process_.on("exit", (code) => resolve(code)));
  return { process: process_, exited, output: () => output };
}

/** A count from the store or the app's table, read by the bench (its own observation). */
function count(path: string, sql: string): number {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return Number((db.prepare(sql).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

async function once(): Promise<{ total: number; takeover: number; started: number }> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-restart-"));
  const [store, app] = [join(dir, "statek.db"), join(dir, "app.db")];
  try {
    const submit = child([store, app, "submit", String(JOBS), "pauser", String(LEASE_MS)]);
    if ((await submit.exited) !== 0) throw new Error(submit.output());
    const first = child([store, app, "work", String(JOBS), String(LEASE_MS)], { PAUSE_MS: "600000" });
    while (count(app, "SELECT count(*) AS n FROM notes") < JOBS) {
      if (first.process.exitCode !== null) throw new Error(first.output());
      await pause(100);
    }
    first.process.kill("SIGKILL");
    await first.exited;
    const restarted = Date.now();
    const second = child([store, app, "work", "100", String(LEASE_MS), "exit-when-done"]);
    // When the new worker said it started claiming, and when it ended the dead worker's leases.
    let started = 0;
    let takeover = 0;
    second.process.stdout.on("data", () => {
      started ||= second.output().includes("claiming") ? Date.now() - restarted : 0;
      takeover ||= /^owner-gone /m.test(second.output()) ? Date.now() - restarted : 0;
    });
    while (count(store, "SELECT count(*) AS n FROM jobs WHERE version >= 1") < JOBS) await pause(20);
    const total = Date.now() - restarted;
    await second.exited;
    if (!takeover) throw new Error(`the new worker did not take over the dead one's leases:\n${second.output()}`);
    return { total, takeover, started };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`bench/worker-restart (kill -9 with ${JOBS.toLocaleString("en-US")} jobs in flight, leaseMs ${LEASE_MS}, SQLite file; median of ${RUNS})`);
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await once());
  const totals = runs.map((run) => run.total);
  console.log(`  restart → every job stepped again: ${median(totals)} ms (runs: ${totals.join(", ")} ms)`);
  console.log(`  restart → the dead worker's leases ended (instead of expiring after ${LEASE_MS} ms): ${median(runs.map((run) => run.takeover))} ms; → claiming: ${median(runs.map((run) => run.started))} ms`);
}

if (import.meta.main) await main();
