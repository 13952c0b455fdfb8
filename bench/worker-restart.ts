/**
 * bench/worker-restart: `kill -9` of a worker with 1,000 jobs in flight (each in the middle of a step, inside
 * an idempotent tool call), then a new worker process: the time from its start until every job has committed a
 * step again, and how much of it was the wait for the dead worker's leases to expire (leaseMs 2,000). Real
 * processes (test/fixtures/worker-process.ts) on one SQLite file; median of STATEK_BENCH_RUNS runs (default 3).
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
const LEASE_MS = 2_000;
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

async function once(): Promise<{ total: number; leaseWait: number }> {
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
    const leasesUntil = count(store, "SELECT max(lease_until) AS n FROM jobs");
    const restarted = Date.now();
    const second = child([store, app, "work", "100", String(LEASE_MS), "exit-when-done"]);
    while (count(store, "SELECT count(*) AS n FROM jobs WHERE version >= 1") < JOBS) await pause(20);
    const total = Date.now() - restarted;
    await second.exited;
    return { total, leaseWait: Math.max(0, leasesUntil - restarted) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`bench/worker-restart (kill -9 with ${JOBS.toLocaleString("en-US")} jobs in flight, leaseMs ${LEASE_MS}, SQLite file; median of ${RUNS})`);
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await once());
  const totals = runs.map((run) => run.total);
  const waits = runs.map((run) => run.leaseWait);
  console.log(`  restart → every job stepped again: ${median(totals)} ms (runs: ${totals.join(", ")} ms)`);
  console.log(`  of which waiting for the dead worker's leases to expire: ${median(waits)} ms; after expiry: ${median(totals.map((total, n) => total - waits[n]!))} ms`);
}

if (import.meta.main) await main();
