/**
 * bench/worker-suspended: many jobs suspended in one worker — half in `waitForMessage()`, half in a long
 * `sleep` — on SQLite (a real file, synchronous=FULL). Prints the time to suspend them all, the RSS each
 * suspended job costs (after a GC: beyond the first 5,000, once the worker runs at full concurrency, and
 * counting everything since the start), and the wake-up latency, p50/p99: from
 * `pushMessage` to the cell running again (a tool the cell calls after the wait records the time), and from a
 * timer's due time to the cell running again (probe jobs sleeping 1–3 s, submitted once all are suspended).
 *
 * Run: `npm run bench -- worker-suspended` (STATEK_BENCH_JOBS, default 100,000; STATEK_BENCH_CONCURRENCY, default 100).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const JOBS = Number(process.env.STATEK_BENCH_JOBS ?? 100_000);
const CONCURRENCY = Number(process.env.STATEK_BENCH_CONCURRENCY ?? 100);
const PROBES = 200;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Worker threads of this process now (the sandbox's: the bench starts none of its own); 0 without /proc. */
function sandboxThreads(): number {
  try {
    return readdirSync("/proc/self/task").filter((task) => readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "WorkerThread").length;
  } catch {
    return 0;
  }
}

function rss(): number {
  for (let n = 0; n < 3; n++) gc();
  return process.memoryUsage().rss;
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-suspended-"));
  // When each job's cell ran again, by job id: the tool runs on the host, so it reads the host's clock.
  const ranAgain = new Map<string, number>();
  const lateness: number[] = [];
  let onMark: (id: string) => void = () => {};
  const mark = tool({
    name: "mark", description: "Records that the cell runs again.", params: z.object({ due: z.number().describe("When the wait was due (0: unknown).") }),
    run: ({ due }, ctx) => {
      const now = Date.now();
      ranAgain.set(ctx.job.id, performance.now());
      if (due) lateness.push(now - due);
      onMark(ctx.job.id);
    },
  });
  const model = scriptedModel([]);
  const listener = new Agent({ role: "listener", tools: [mark], model, warmup: "await waitForMessage()\nmark(0)\nexit()" });
  const sleeper = new Agent({ role: "sleeper", tools: [mark], model, warmup: "const due = Date.now() + 86_400_000\nawait sleep(86_400_000)\nmark(due)\nexit()" });
  const probe = new Agent({ role: "probe", tools: [mark], model, warmup: "const due = Date.now() + wait\nawait sleep(wait)\nmark(due)\nexit()" });
  const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [listener, sleeper, probe] });
  try {
    console.log(`bench/worker-suspended (${JOBS.toLocaleString("en-US")} jobs, maxConcurrency ${CONCURRENCY}, SQLite file, synchronous=FULL, QuickJS)`);
    const worker = statek.worker({ maxConcurrency: CONCURRENCY });
    await worker.start();
    // Warm the process up (threads, VMs, statements) before the baseline.
    const warm = await Promise.all(Array.from({ length: 20 }, () => statek.submitJob(listener)));
    while (worker.stats.suspended < 20) await new Promise((resolve) => setTimeout(resolve, 50));
    const before = rss();
    const started = performance.now();
    const listeners: string[] = [];
    // RSS is also read once the first WARM_JOBS are suspended: by then the worker runs at full concurrency (its
    // sandbox threads, VMs in flight and pooled instances are there), so what grows after is the suspended jobs'.
    const warmJobs = Math.min(JOBS / 2, 5_000);
    let steady: number | undefined;
    let steadyHeap = 0;
    let steadyThreads = 0;
    // Also read at half the jobs: the worker's sandbox keeps growing for a while under load (extra threads), so
    // the second half shows what the jobs themselves add.
    const half = Math.floor(JOBS / 2);
    let halfway: { rss: number; threads: number } | undefined;
    for (let n = 0; n < JOBS; n += 1_000) {
      const batch = Math.min(1_000, JOBS - n);
      const ids = await Promise.all(Array.from({ length: batch }, (_, i) => statek.submitJob((n + i) % 2 ? sleeper : listener)));
      ids.forEach((job, i) => (n + i) % 2 === 0 && listeners.push(job.id));
      if (steady === undefined && n + batch >= warmJobs) {
        while (worker.stats.suspended < n + batch + 20) await new Promise((resolve) => setTimeout(resolve, 100));
        steady = rss();
        steadyHeap = process.memoryUsage().heapUsed;
        steadyThreads = sandboxThreads();
      }
      if (halfway === undefined && half > warmJobs && n + batch >= half) {
        while (worker.stats.suspended < n + batch + 20) await new Promise((resolve) => setTimeout(resolve, 100));
        halfway = { rss: rss(), threads: sandboxThreads() };
      }
    }
    while (worker.stats.suspended < JOBS + 20) await new Promise((resolve) => setTimeout(resolve, 100));
    const suspendSeconds = (performance.now() - started) / 1000;
    const after = rss();
    const afterHeap = process.memoryUsage().heapUsed;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    console.log(`  time to suspend them all: ${suspendSeconds.toFixed(1)} s (${(JOBS / suspendSeconds).toFixed(0)} jobs/s)`);
    console.log(`  RSS: ${mib(before)} at start, ${mib(steady!)} with ${warmJobs.toLocaleString("en-US")} suspended (the worker at full concurrency), ${mib(after)} with all`);
    console.log(`  RSS per suspended job: ${((after - steady!) / (JOBS - warmJobs) / 1024).toFixed(2)} KiB beyond the first ${warmJobs.toLocaleString("en-US")}; ` +
      `${((after - before) / JOBS / 1024).toFixed(2)} KiB counting everything since the start`);
    if (halfway) {
      console.log(`  RSS per suspended job in the second half (${half.toLocaleString("en-US")} → ${JOBS.toLocaleString("en-US")}): ${((after - halfway.rss) / (JOBS - half) / 1024).toFixed(2)} KiB ` +
        `(sandbox threads ${halfway.threads} → ${sandboxThreads()})`);
    }
    console.log(`  of which the worker's own JS heap (the scheduling thread): ${((afterHeap - steadyHeap) / (JOBS - warmJobs) / 1024).toFixed(2)} KiB per job beyond the first ${warmJobs.toLocaleString("en-US")} (${mib(steadyHeap)} → ${mib(afterHeap)}); sandbox threads ${steadyThreads} → ${sandboxThreads()}`);

    // pushMessage → the cell runs again, one at a time.
    const pushLatency: number[] = [];
    for (const id of listeners.slice(0, PROBES)) {
      const ran = new Promise<void>((resolve) => (onMark = (job) => job === id && resolve()));
      const pushed = performance.now();
      await statek.pushMessage(id, "go");
      await ran;
      pushLatency.push(ranAgain.get(id)! - pushed);
    }
    console.log(`  wake-up from pushMessage to the cell running again: p50 ${percentile(pushLatency, 50).toFixed(1)} ms, p99 ${percentile(pushLatency, 99).toFixed(1)} ms`);

    // Timers due 1–3 s from now, while the other jobs stay suspended.
    onMark = () => {};
    await Promise.all(Array.from({ length: PROBES }, (_, n) => statek.submitJob(probe, { vars: { wait: 1_000 + Math.floor((n * 2_000) / PROBES) } })));
    while (lateness.length < PROBES) await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(`  wake-up from a timer's due time to the cell running again: p50 ${percentile(lateness, 50)} ms, p99 ${percentile(lateness, 99)} ms`);
    void warm;
    await worker.stop({ graceMs: 1_000 });
  } finally {
    await statek.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
