/**
 * bench/agent-loop: an agentic loop keeping jobs going under one worker (SQLite file, synchronous=FULL, QuickJS):
 * the loop's queue never empties (queueSize 1,000,000), each job is one step (its warmup exits), maxConcurrency
 * 100 — jobs created per second by the loop, and the worker's steady step rate with the loop against the same
 * worker stepping the same jobs submitted beforehand (no loop). Counted over STEPS steps after a warmup; each
 * figure is the median of RUNS runs (STATEK_BENCH_RUNS, default 3).
 *
 * Run: `npm run bench -- agent-loop`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
/** Steps counted per run: STATEK_BENCH_STEPS, default 2,000. */
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 2_000);
const WARMUP = 200;
const CONCURRENCY = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Steps per second (and loop-made jobs per second) of one worker, with or without a loop. */
async function measure(withLoop: boolean): Promise<{ steps: number; created: number }> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-loop-"));
  try {
    const agent = new Agent({ role: "bench", model: scriptedModel([]), warmup: "exit(1)" });
    const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [agent] });
    if (!withLoop) {
      for (let n = 0; n < STEPS + WARMUP + CONCURRENCY; n += 500) {
        await Promise.all(Array.from({ length: 500 }, () => statek.submitJob(agent)));
      }
    }
    const worker = statek.worker({ maxConcurrency: CONCURRENCY, ...(withLoop ? { loops: [{ agent, queueSize: () => 1_000_000 }] } : {}) });
    let started = 0;
    let fromSteps = 0;
    let fromCreated = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    await worker.start();
    // The worker's counters, read every 5 ms (the bench's own observation).
    const timer = setInterval(() => {
      const stats = worker.stats;
      if (started === 0 && stats.steps >= WARMUP) {
        started = performance.now();
        fromSteps = stats.steps;
        fromCreated = stats.agents.bench?.fromLoop ?? 0;
      } else if (started && stats.steps - fromSteps >= STEPS) done();
    }, 5);
    await finished;
    clearInterval(timer);
    const seconds = (performance.now() - started) / 1000;
    const stats = worker.stats;
    await worker.stop({ graceMs: 0 });
    await statek.close();
    return { steps: (stats.steps - fromSteps) / seconds, created: ((stats.agents.bench?.fromLoop ?? 0) - fromCreated) / seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`bench/agent-loop (SQLite file, synchronous=FULL, QuickJS; one-step jobs, maxConcurrency ${CONCURRENCY}; ${STEPS} steps counted; median of ${RUNS} runs)`);
  const loop: Array<{ steps: number; created: number }> = [];
  const plain: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    plain.push((await measure(false)).steps);
    loop.push(await measure(true));
  }
  console.log(`  without a loop (jobs submitted beforehand): ${median(plain).toFixed(0)} steps/s  (runs: ${plain.map((value) => value.toFixed(0)).join(", ")})`);
  console.log(`  with a loop keeping the queue going:        ${median(loop.map((run) => run.steps)).toFixed(0)} steps/s, ` +
    `${median(loop.map((run) => run.created)).toFixed(0)} jobs created/s by the loop  (runs: ${loop.map((run) => `${run.steps.toFixed(0)}/${run.created.toFixed(0)}`).join(", ")})`);
}

if (import.meta.main) await main();
