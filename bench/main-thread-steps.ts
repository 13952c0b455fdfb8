/**
 * bench/main-thread-steps: what one warm step costs the scheduling thread (the process's main thread, which
 * builds prompts, talks to the store and answers the sandbox threads), in CPU microseconds per step, beside the
 * steps/s — 100 jobs under one worker on a SQLite file (synchronous=FULL, QuickJS executor), for two agents:
 *
 * - `no-op`: no tools, the default prompt, each cell `1` (what `bench/worker-steps` runs);
 * - `8 tools`: eight tools offered formally (`LLM_TOOLS_SCOPE`) and documented in the system prompt with
 *   `{detailed_tools}` (TypeScript declarations), each cell `1` — what a real agent's request carries.
 *
 * The thread's CPU time is read from `/proc/self/task/<pid>/stat` (Linux; elsewhere it is left out); the
 * process's, every thread's together (sandbox threads and SQLite included), from `process.cpuUsage()`.
 * Each figure is the median of RUNS runs (STATEK_BENCH_RUNS, default 3). Run: `npm run bench -- main-thread`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
/** Steps counted: STATEK_BENCH_STEPS, default 3,000 (after 500 not counted). */
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 3_000);
const WARMUP = 500;
const JOBS = 100;
const NOOP_CELL = "```ts\n1\n```";
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU milliseconds the main thread has used, or `undefined` where /proc is not there. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function toolRichAgent(model: ReturnType<typeof scriptedModel>): Agent {
  const tools = Array.from({ length: 8 }, (_, index) => tool({
    name: `tool${index}`,
    description: `Tool number ${index}.\n\nDoes what tool ${index} does.`,
    params: z.object({
      name: z.string().describe("A name."),
      count: z.number().default(3).describe("How many."),
      when: z.date().optional().describe("When."),
      items: z.array(z.object({ key: z.string().describe("Key."), kind: z.enum(["small", "large"]).describe("Kind.") })).describe("Items."),
    }),
    run: () => 1,
  }));
  return new Agent({
    role: "bench-tools",
    model,
    tools,
    systemPrompt: "You write TypeScript.\n{detailed_tools}\nVariables: {shared_var_names}",
    metadata: { LLM_TOOLS_SCOPE: "APPLICATION" },
    harness: { maxTurns: 100_000 },
  });
}

/** Steps/s, the main thread's CPU µs per step (when /proc is there) and the whole process's (every thread's). */
interface Measured {
  rate: number;
  microseconds: number | undefined;
  total: number;
}

/** Steps/s and the main thread's CPU µs per step over `STEPS` steps of 100 jobs. */
async function measure(kind: "no-op" | "8 tools"): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-main-"));
  try {
    const model = scriptedModel(Array.from({ length: STEPS + WARMUP + JOBS * 4 }, () => NOOP_CELL));
    const agent = kind === "no-op" ? new Agent({ role: "bench", model, harness: { maxTurns: 100_000 } }) : toolRichAgent(model);
    const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [agent] });
    await Promise.all(Array.from({ length: JOBS }, () => statek.submitJob(agent, { vars: { x: 1 } })));
    const worker = statek.worker({ maxConcurrency: JOBS });
    let started = 0;
    let from = 0;
    let cpuFrom: number | undefined;
    let processFrom = process.cpuUsage();
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    await worker.start();
    const timer = setInterval(() => {
      const steps = worker.stats.steps;
      if (started === 0 && steps >= WARMUP) {
        started = performance.now();
        from = steps;
        cpuFrom = mainThreadCpuMs();
        processFrom = process.cpuUsage();
      } else if (started && steps - from >= STEPS) done();
    }, 5);
    await finished;
    clearInterval(timer);
    const counted = worker.stats.steps - from;
    const rate = (counted * 1000) / (performance.now() - started);
    const cpuTo = mainThreadCpuMs();
    const processUsed = process.cpuUsage(processFrom);
    await worker.stop({ graceMs: 0 });
    await statek.close();
    const microseconds = cpuFrom === undefined || cpuTo === undefined ? undefined : ((cpuTo - cpuFrom) * 1000) / counted;
    const total = (processUsed.user + processUsed.system) / counted;
    return { rate, microseconds, total };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`bench/main-thread-steps (100 jobs under one worker, SQLite file, synchronous=FULL, QuickJS; median of ${RUNS} runs)`);
  for (const kind of ["no-op", "8 tools"] as const) {
    const runs: Measured[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await measure(kind));
    const cpu = runs.every((run) => run.microseconds !== undefined)
      ? `, main thread ${median(runs.map((run) => run.microseconds!)).toFixed(0)} µs CPU/step (runs: ${runs.map((run) => run.microseconds!.toFixed(0)).join(", ")})`
      : "";
    const total = `, process ${median(runs.map((run) => run.total)).toFixed(0)} µs CPU/step (runs: ${runs.map((run) => run.total.toFixed(0)).join(", ")})`;
    console.log(`  ${kind.padEnd(8)} ${median(runs.map((run) => run.rate)).toFixed(0)} steps/s (runs: ${runs.map((run) => run.rate.toFixed(0)).join(", ")})${cpu}${total}`);
  }
}
