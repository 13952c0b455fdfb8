/**
 * bench/chaos: the chaos run at full size (test/support/chaos-harness.ts; test/chaos.test.ts runs a short one in
 * the suite). Per run: 3 worker processes (maxConcurrency 20, leaseMs 5 s) on one store run JOBS parent jobs
 * (each starts a child: 2 × JOBS jobs) while a client process pushes messages, approves transfers and forges
 * settlements at random; a worker is killed with SIGKILL every 1–4 s while work remains, one is stopped with
 * SIGSTOP past its lease and resumed, and on PostgreSQL the server is restarted once with `-m immediate`.
 *
 * Printed per run: its seed and figures (jobs stuck, calls without their record, duplicate effects, in-doubt
 * calls shown, extra model calls per 1,000 turns and their causes, kill-to-takeover p50/p99); then, per store,
 * the medians over the runs and the totals of the violations. The machine's load (`/proc/loadavg`) is printed
 * before and after each run.
 *
 * Run: `npx node scripts/with-postgres.ts npm run bench -- chaos` (both stores; without STATEK_TEST_POSTGRES only
 * SQLite). STATEK_BENCH_RUNS (default 5), STATEK_BENCH_JOBS (default 300), STATEK_BENCH_STORES
 * (`sqlite,postgres`), CHAOS_SEED (the first run's seed; the others follow it), CHAOS_KEEP (a directory: each
 * run's files are kept under it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chaosFigures, percentile, runChaos, type ChaosReport } from "../test/support/chaos-harness.ts";
import { postgresRestartSkipReason } from "../test/support/postgres-control.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 5);
const JOBS = Number(process.env.STATEK_BENCH_JOBS ?? 300);
const STORES = (process.env.STATEK_BENCH_STORES ?? "sqlite,postgres").split(",").map((name) => name.trim());

const median = (values: readonly number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]! : Number.NaN);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** The medians and totals of one store's runs. */
function summary(store: string, reports: readonly ChaosReport[]): string {
  const extra = (report: ChaosReport) => {
    const calls = report.extraCalls;
    return report.turns ? (1000 * (calls.afterKill + calls.afterStop + calls.afterRestart + calls.other)) / report.turns : 0;
  };
  const sum = (pick: (report: ChaosReport) => number) => reports.reduce((total, report) => total + pick(report), 0);
  return [
    `${store}: ${reports.length} runs × ${JOBS} parent jobs`,
    `kills median ${median(reports.map((report) => report.kills))} (${Math.min(...reports.map((report) => report.kills))}–${Math.max(...reports.map((report) => report.kills))})`,
    `takeover p50 median ${median(reports.map((report) => percentile(report.takeoverMs, 50)))} ms, p99 median ${median(reports.map((report) => percentile(report.takeoverMs, 99)))} ms`,
    `duration median ${(median(reports.map((report) => report.durationMs)) / 1000).toFixed(1)} s`,
    `jobs stuck ${sum((report) => report.stuck.length)}`, `off script ${sum((report) => report.offScript.length)}`,
    `calls without their record ${sum((report) => report.unrecorded)}`, `recorded twice ${sum((report) => report.recordedTwice)}`,
    `duplicate effects ${sum((report) => report.duplicateEffects)}`, `in doubt shown median ${median(reports.map((report) => report.inDoubt))}`,
    `extra model calls per 1,000 turns median ${median(reports.map(extra)).toFixed(1)} (with no fault before them: ${sum((report) => report.extraCalls.other)})`,
    `effects by a stopped worker after resuming ${sum((report) => report.afterResume)} (not in doubt ${sum((report) => report.afterResumeNotInDoubt)})`,
    `forged settlements accepted ${sum((report) => report.client.forgedAccepted ?? 0)}`,
    `runs with violations ${reports.filter((report) => report.violations.length).length}`,
  ].join(" · ");
}

/** Runs the chaos runs and prints their figures. */
export async function main(): Promise<void> {
  const postgres = process.env.STATEK_TEST_POSTGRES;
  let seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const stores = STORES.filter((store) => {
    if (store === "postgres" && !postgres) console.log("chaos: no PostgreSQL run (STATEK_TEST_POSTGRES is not set; run under scripts/with-postgres.ts)");
    return store !== "postgres" || postgres !== undefined;
  });
  const restarts = postgresRestartSkipReason() === undefined ? 1 : 0;
  if (stores.includes("postgres") && !restarts) console.log(`chaos: no database restart: ${postgresRestartSkipReason()}`);
  const reports = new Map<string, ChaosReport[]>(stores.map((store) => [store, []]));
  // The stores take turns, so that a bench cut short still has runs of each.
  for (let run = 0; run < RUNS; run++) {
    for (const store of stores) {
      console.log(`chaos: ${store} run ${run + 1}/${RUNS}, seed ${seed}, load ${load()}`);
      const report = await runChaos({
        store: store === "postgres" ? { postgres: postgres! } : "sqlite",
        jobs: JOBS, workers: 3, maxConcurrency: 20, leaseMs: 5_000, seed,
        kills: 1_000, stops: 1, restarts: store === "postgres" ? restarts : 0, faultGapMs: [1_000, 4_000], deadlineMs: 12 * 60_000,
        ...(process.env.CHAOS_KEEP ? { keep: join(process.env.CHAOS_KEEP, `${store}-${seed}`) } : {}),
        log: (line) => console.log(line),
      });
      reports.get(store)!.push(report);
      console.log(`chaos: ${chaosFigures(report)} · load after ${load()}`);
      for (const violation of report.violations.slice(0, 20)) console.log(`chaos:   violation: ${violation}`);
      seed = (seed + 1) % 2 ** 31;
    }
  }
  const lines = stores.map((store) => summary(store, reports.get(store)!));
  for (const line of lines) console.log(`chaos: ${line}`);
}

if (import.meta.main) await main();
