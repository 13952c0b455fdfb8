/**
 * bench/resume: how long a job suspended in `waitForMessage()` takes to run again after `pushMessage`, in a
 * warm worker, when its workspace holds 1 variable and when it holds 50 (plain objects and arrays of modest
 * size, as a model's cells leave them). Each job's first warmup block creates the variables (committed with
 * it); its second waits for a message, then calls a tool that records the host's clock. Once all jobs are
 * suspended, each is pushed a message in turn and timed from the call to `pushMessage` to the tool running.
 * Prints p50/p99 per store and workspace size, medians of RUNS runs (STATEK_BENCH_RUNS, default 3), with the
 * load average.
 *
 * Run: `npm run bench -- resume` (SQLite file, synchronous=FULL); with PostgreSQL too:
 * `npx node scripts/with-postgres.ts npm run bench -- resume`. STATEK_BENCH_JOBS (jobs per run, default 50),
 * STATEK_BENCH_STORES (default `sqlite,postgres`; PostgreSQL only when STATEK_TEST_POSTGRES is set).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const JOBS = Number(process.env.STATEK_BENCH_JOBS ?? 50);
const STORES = (process.env.STATEK_BENCH_STORES ?? "sqlite,postgres").split(",").map((name) => name.trim());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Warmup creating `count` variables of a workspace's usual kinds: records, lists, nested settings, text. */
function variablesBlock(count: number): string {
  const lines: string[] = [];
  for (let n = 0; n < count; n++) {
    switch (n % 4) {
      case 0: lines.push(`const rows${n} = Array.from({ length: 20 }, (_, i) => ({ id: i, name: "item " + i, done: i % 3 === 0, tags: ["a", "b"] }))`); break;
      case 1: lines.push(`const list${n} = Array.from({ length: 50 }, (_, i) => i * ${n})`); break;
      case 2: lines.push(`const config${n} = { name: "setting ${n}", limits: { max: ${n}, min: 0 }, flags: [true, false], note: "x".repeat(200) }`); break;
      default: lines.push(`let text${n} = "line of text ${n} ".repeat(20)`);
    }
  }
  return lines.join("\n");
}

/**
 * One run: `JOBS` jobs with `count` variables each suspended, then pushed one at a time. Latencies in ms, and
 * the CPU this process (its sandbox threads included) spent per resume: a figure the machine's load does not
 * inflate as it does the latencies.
 */
async function resumeLatencies(store: string, count: number): Promise<{ latencies: number[]; cpuMs: number }> {
  const ranAgain = new Map<string, number>();
  let onMark: (id: string) => void = () => {};
  const mark = tool({
    // Read-only: no durable intent (an fsync) before it runs, so the figure is the resume, not the tool call.
    name: "mark", description: "Records that the cell runs again.", params: z.object({}), readOnly: true,
    run: (_args, ctx) => {
      ranAgain.set(ctx.job.id, performance.now());
      onMark(ctx.job.id);
    },
  });
  const warmup = `${variablesBlock(count)}\n// ----------\nawait waitForMessage()\nmark({})\nexit()`;
  const agent = new Agent({ role: "listener", tools: [mark], model: scriptedModel([]), warmup });
  const statek = await Statek.open({ store, agents: [agent] });
  try {
    const worker = statek.worker({ maxConcurrency: JOBS });
    await worker.start();
    const ids = (await Promise.all(Array.from({ length: JOBS }, () => statek.submitJob(agent)))).map((job) => job.id);
    while (worker.stats.suspended < JOBS) await new Promise((resolve) => setTimeout(resolve, 20));
    const latencies: number[] = [];
    const cpu = process.cpuUsage();
    for (const id of ids) {
      const ran = new Promise<void>((resolve) => (onMark = (job) => job === id && resolve()));
      const pushed = performance.now();
      await statek.pushMessage(id, "go");
      await ran;
      latencies.push(ranAgain.get(id)! - pushed);
    }
    const spent = process.cpuUsage(cpu);
    await worker.stop({ graceMs: 1_000 });
    return { latencies, cpuMs: (spent.user + spent.system) / 1000 / JOBS };
  } finally {
    await statek.close();
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

export async function main(): Promise<void> {
  const postgres = process.env["STATEK_TEST_POSTGRES"];
  console.log(`bench/resume (${JOBS} jobs suspended in waitForMessage, pushed one at a time; ${RUNS} runs, medians)`);
  for (const storeName of STORES) {
    if (storeName === "postgres" && !postgres) {
      console.log("  postgres: no server (run under `npx node scripts/with-postgres.ts`)");
      continue;
    }
    for (const count of [1, 50]) {
      const p50s: number[] = [];
      const p99s: number[] = [];
      const loads: number[] = [];
      const cpus: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        let latencies: number[];
        let cpuMs: number;
        if (storeName === "postgres") {
          const schema = `bench_resume_${Date.now()}`;
          ({ latencies, cpuMs } = await resumeLatencies(`${postgres}${postgres!.includes("?") ? "&" : "?"}schema=${schema}`, count));
          await dropSchema(postgres!, schema);
        } else {
          const dir = mkdtempSync(join(tmpdir(), "statek-bench-resume-"));
          try {
            ({ latencies, cpuMs } = await resumeLatencies(join(dir, "bench.db"), count));
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
        p50s.push(percentile(latencies, 50));
        p99s.push(percentile(latencies, 99));
        loads.push(loadavg()[0]!);
        cpus.push(cpuMs);
      }
      const label = storeName === "postgres" ? "PostgreSQL" : "SQLite file, synchronous=FULL";
      console.log(`  ${label}, ${String(count).padStart(2)} variable${count === 1 ? " " : "s"}: pushMessage → cell running again p50 ${median(p50s).toFixed(1)} ms, ` +
        `p99 ${median(p99s).toFixed(1)} ms, CPU ${median(cpus).toFixed(2)} ms a resume (p50 of runs: ${p50s.map((v) => v.toFixed(1)).join(", ")}; load ${loads.map((v) => v.toFixed(1)).join(", ")})`);
    }
  }
}

if (import.meta.main) await main();
