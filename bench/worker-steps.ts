/**
 * bench/worker-steps: durable no-op steps per second under `statek.worker()` on SQLite (a real file,
 * synchronous=FULL, QuickJS executor), with 1 job and with 100 jobs at once (maxConcurrency = jobs), and the raw
 * ceiling of fsync'd commits on this machine (one-row write transactions in a loop, synchronous=FULL), and — side
 * by side, when it is installed (see bench/langgraph-steps.ts) — LangGraph.js with its SQLite checkpointer.
 * Each figure is the median of RUNS runs (STATEK_BENCH_RUNS, default 3).
 *
 * Run: `npm run bench -- worker-steps`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { loadLangGraph } from "./langgraph-steps.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
/** Steps counted with 100 jobs (a tenth of it with 1 job): STATEK_BENCH_STEPS, default 2,000. */
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 2_000);
const NOOP_CELL = "```ts\n1\n```";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Steps per second of `jobs` jobs under one worker, counted over `steps` steps after `warmup` steps, on `store`
 * (a URL or path; by default a new SQLite file).
 */
export async function workerStepsPerSecond(jobs: number, steps: number, warmup: number, store?: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-worker-"));
  try {
    const model = scriptedModel(Array.from({ length: steps + warmup + jobs * 4 }, () => NOOP_CELL));
    const agent = new Agent({ role: "bench", model, harness: { maxTurns: 100_000 } });
    const statek = await Statek.open({ store: store ?? join(dir, "bench.db"), agents: [agent] });
    await Promise.all(Array.from({ length: jobs }, () => statek.submitJob(agent, { vars: { x: 1 } })));
    const worker = statek.worker({ maxConcurrency: jobs });
    let started = 0;
    let from = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    const seen = { steps: 0 };
    await worker.start();
    // The worker's counters, read every 5 ms (a bench's own observation; it adds no work to the worker).
    const timer = setInterval(() => {
      seen.steps = worker.stats.steps;
      if (started === 0 && seen.steps >= warmup) {
        started = performance.now();
        from = seen.steps;
      } else if (started && seen.steps - from >= steps) done();
    }, 5);
    await finished;
    clearInterval(timer);
    const rate = ((seen.steps - from) * 1000) / (performance.now() - started);
    await worker.stop({ graceMs: 0 });
    await statek.close();
    return rate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** fsync'd one-row commits per second: the ceiling of a store that commits each step alone. */
function fsyncCeiling(commits: number): number {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-fsync-"));
  try {
    const db = new DatabaseSync(join(dir, "ceiling.db"));
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const started = performance.now();
    for (let n = 0; n < commits; n++) insert.run("x");
    const rate = (commits * 1000) / (performance.now() - started);
    db.close();
    return rate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`bench/worker-steps (SQLite file, synchronous=FULL, QuickJS executor; median of ${RUNS} runs)`);
  const ceiling = median(Array.from({ length: RUNS }, () => fsyncCeiling(500)));
  console.log(`  fsync'd one-row commits (the raw ceiling of one commit per step): ${ceiling.toFixed(0)}/s`);
  const one: number[] = [];
  for (let run = 0; run < RUNS; run++) one.push(await workerStepsPerSecond(1, Math.ceil(STEPS / 10), 20));
  console.log(`  1 job under the worker:    ${median(one).toFixed(0)} durable no-op steps/s (runs: ${one.map((rate) => rate.toFixed(0)).join(", ")})`);
  const hundred: number[] = [];
  for (let run = 0; run < RUNS; run++) hundred.push(await workerStepsPerSecond(100, STEPS, 200));
  console.log(`  100 jobs under the worker: ${median(hundred).toFixed(0)} durable no-op steps/s (runs: ${hundred.map((rate) => rate.toFixed(0)).join(", ")})`);
  const langGraph = loadLangGraph();
  if ("missing" in langGraph) {
    console.log(`  LangGraph.js + SQLite checkpointer: not run, ${langGraph.missing}`);
    return;
  }
  for (const [jobs, steps] of [[1, Math.ceil(STEPS / 10)], [100, STEPS]] as const) {
    const rates: number[] = [];
    for (let run = 0; run < RUNS; run++) rates.push(await langGraph.steps(jobs, steps));
    console.log(`  LangGraph.js + SQLite checkpointer, ${String(jobs).padStart(3)} thread(s): ${median(rates).toFixed(0)} one-node invokes/s (runs: ${rates.map((rate) => rate.toFixed(0)).join(", ")})`);
  }
}

if (import.meta.main) await main();
