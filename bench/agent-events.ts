/**
 * bench/agent-events: event → job latency across processes. A third process pushes EVENTS agent events, one every
 * SPACING ms (`{ n, sentAt }`), to one or two worker processes (test/fixtures/agent-events-process.ts, 20 slots
 * each), after WARMUP_EVENTS events that are not measured (a worker's first steps compile the sandbox); the latency of an event is its job's `createdAt` (stamped by the worker that made it) minus `sentAt` (same
 * machine, one clock). p50 and p99 over all events; each the median of RUNS runs (STATEK_BENCH_RUNS, default 3).
 * On a SQLite file (other processes' pushes are heard by the store's `data_version` poll, 25 ms by default), and on
 * PostgreSQL (LISTEN/NOTIFY) when STATEK_TEST_POSTGRES names a server (`npx node scripts/with-postgres.ts npm run
 * bench -- agent-events`).
 *
 * Run: `npm run bench -- agent-events`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Statek } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const EVENTS = Number(process.env.STATEK_BENCH_EVENTS ?? 200);
const SPACING = 20;
const FIXTURE = join(import.meta.dirname, "..", "test", "fixtures", "agent-events-process.ts");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

/** Runs the fixture; resolves when it exits (rejects unless 0). `ready` resolves once it printed `claiming`. */
function child(args: string[], env: Record<string, string> = {}): { ready: Promise<void>; exited: Promise<void> } {
  const process_ = spawn(process.execPath, [FIXTURE, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  process_.stdout.on("data", (chunk) => {
    output += chunk;
    if (output.includes("claiming")) markReady();
  });
  process_.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve, reject) => process_.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(" ")} exited ${code}: ${output.slice(-2000)}`)))));
  return { ready, exited };
}

/** Events pushed first and not measured: each worker's first steps compile the sandbox. */
const WARMUP_EVENTS = 20;

/** Resolves once `count` jobs of the fixture's agent are DONE. */
async function doneJobs(store: string, count: number): Promise<void> {
  const statek = await Statek.open({ store });
  try {
    while ((await statek.store.countJobs({ role: "ev" })).DONE < count) await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await statek.close();
  }
}

async function latencies(store: string, workers: number): Promise<number[]> {
  await child([store, "push", "0"]).exited; // migrates first
  const running = Array.from({ length: workers }, () => child([store, "work", "20", String(EVENTS + WARMUP_EVENTS)]));
  await Promise.all(running.map((worker) => worker.ready));
  await child([store, "push", String(WARMUP_EVENTS), String(EVENTS)], { PUSH_EVERY_MS: "5" }).exited;
  await doneJobs(store, WARMUP_EVENTS);
  await child([store, "push", String(EVENTS)], { PUSH_EVERY_MS: String(SPACING) }).exited;
  await Promise.all(running.map((worker) => worker.exited));
  const statek = await Statek.open({ store });
  try {
    const jobs = await statek.listJobs({ role: "ev", limit: EVENTS + WARMUP_EVENTS + 1 });
    const measured = await Promise.all(jobs.map(async (job) => {
      const event = (await statek.getJob(job.id))!.variables.e as { n: number; sentAt: number };
      return event.n < EVENTS ? [job.createdAt.getTime() - event.sentAt] : [];
    }));
    return measured.flat();
  } finally {
    await statek.close();
  }
}

async function measure(name: string, store: () => { path: string; remove(): void }): Promise<void> {
  for (const workers of [1, 2]) {
    const p50: number[] = [];
    const p99: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { path, remove } = store();
      try {
        const values = await latencies(path, workers);
        p50.push(percentile(values, 50));
        p99.push(percentile(values, 99));
      } finally {
        remove();
      }
    }
    console.log(`  ${name}, ${workers} worker process${workers > 1 ? "es" : ""}: event → job p50 ${median(p50)} ms, p99 ${median(p99)} ms  (runs p50 ${p50.join(", ")}; p99 ${p99.join(", ")})`);
  }
}

export async function main(): Promise<void> {
  console.log(`bench/agent-events (${EVENTS} events pushed from a third process, one every ${SPACING} ms; median of ${RUNS} runs)`);
  await measure("SQLite file", () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-bench-events-"));
    return { path: join(dir, "statek.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
  });
  const url = process.env.STATEK_TEST_POSTGRES;
  if (url) {
    let schemas = 0;
    await measure("PostgreSQL", () => ({ path: `${url}?schema=bench_events_${process.pid}_${schemas++}`, remove: () => {} }));
  } else {
    console.log("  PostgreSQL: skipped (no STATEK_TEST_POSTGRES)");
  }
}

if (import.meta.main) await main();
