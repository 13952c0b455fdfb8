/**
 * bench/typed-cells: what type-checking cells costs (docs/typed-cells.md).
 *
 * - **Cold start**: a new checker thread, from the first check asked to its answer (the thread starts, loads the
 *   TypeScript compiler, parses the library, checks a first cell).
 * - **Latency per cell on a warm checker**: every cell of the corpus the test suites type-check
 *   (`test/fixtures/typed-cells.json`, made by `scripts/collect-typed-cells.ts`), each with its own job's
 *   declarations, variables and earlier cells, one after another through one warm thread: p50 and p95 of the
 *   time on the checker's thread, and of the round trip the scheduling thread waits.
 * - **Memory**: the checker thread's V8 heap when warm, after the corpus, and what each further job adds (checks of
 *   JOBS distinct jobs, each with its own variables and earlier cells); the process's RSS with the thread.
 * - **Step throughput**: 100 jobs under one worker on a SQLite file, each cell a typical one (a tool call with
 *   arguments, a variable read, a loop), with `typeCheck: "refuse"` against `"off"`: steps/s and the scheduling
 *   thread's CPU per step.
 *
 * Every figure is the median of RUNS runs (STATEK_BENCH_RUNS, default 3). Run: `npm run bench -- typed-cells`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { CheckerThread } from "../src/typecheck/checker-thread.ts";
import type { CellCheckInput } from "../src/typecheck/type-check-result.ts";
import type { TypedCellCorpus } from "../scripts/collect-typed-cells.ts";

const RUNS = Number(process.env.STATEK_BENCH_RUNS ?? 3);
const STEPS = Number(process.env.STATEK_BENCH_STEPS ?? 1_500);
const WARMUP_STEPS = 300;
const JOBS = 100;
const MEMORY_JOBS = 1_000;
const TICKS_PER_SECOND = 100;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: readonly number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The corpus's checks, as the checker's thread receives them. */
function corpus(): CellCheckInput[] {
  const stored = JSON.parse(readFileSync(new URL("../test/fixtures/typed-cells.json", import.meta.url), "utf8")) as TypedCellCorpus;
  return stored.entries.map((entry) => ({
    declarations: stored.texts[entry.declarations]!,
    cells: entry.cells.map((index) => stored.texts[index]!),
    variables: entry.variables,
    cell: stored.texts[entry.cell]!,
  }));
}

async function coldStart(): Promise<number> {
  const thread = new CheckerThread();
  const started = performance.now();
  await thread.check({ declarations: "", cells: [], variables: [], cell: "print(1)" });
  const elapsed = performance.now() - started;
  await thread.close();
  return elapsed;
}

/** What one pass over the corpus measured. */
interface LatencyRun {
  thread: number[];
  roundTrip: number[];
  heapWarm: number;
  heapAfter: number;
  heapPerJob: number;
  rss: number;
}

async function latency(inputs: readonly CellCheckInput[]): Promise<LatencyRun> {
  // Every check made: a kept verdict would answer the second pass without the compiler.
  const thread = new CheckerThread({ cachedChecks: 0 });
  try {
    await thread.check({ declarations: "", cells: [], variables: [], cell: "print(1)" });
    const heapWarm = (await thread.heapUsage()).usedBytes;
    // A first pass parses each job's declarations once, as a job's first step does; the second is what later steps cost.
    for (const input of inputs) await thread.check(input);
    const inThread: number[] = [];
    const roundTrip: number[] = [];
    for (const input of inputs) {
      const started = performance.now();
      const verdict = await thread.check(input);
      roundTrip.push(performance.now() - started);
      if (verdict.kind === "checked") inThread.push(verdict.durationMs);
    }
    const heapAfter = (await thread.heapUsage()).usedBytes;
    // Jobs of their own: each with a variable and an earlier cell of its own, over one job's declarations.
    const base = inputs.find((input) => input.declarations.length > 200) ?? inputs[0]!;
    const before = (await thread.heapUsage()).usedBytes;
    for (let job = 0; job < MEMORY_JOBS; job++) {
      await thread.check({
        ...base,
        cells: [...base.cells, `function helper${job}(n: number) { return n + ${job} }`],
        variables: [...base.variables, { name: `state${job}`, type: { holds: "value", shape: { kind: "object", fields: [{ key: "count", shape: { kind: "name", text: "number" } }] } } }, { name: `helper${job}`, type: { holds: "definition", shape: { kind: "any" } } }],
        cell: `state${job}.count += helper${job}(1)`,
      });
    }
    const heapPerJob = ((await thread.heapUsage()).usedBytes - before) / MEMORY_JOBS;
    return { thread: inThread, roundTrip, heapWarm, heapAfter, heapPerJob, rss: process.memoryUsage().rss };
  } finally {
    await thread.close();
  }
}

const CELLS = [
  "const slot = await findSlot({ day: new Date(), minutes: 30 })\nnotes.push(slot.label)\nslot.label",
  "let total = 0\nfor (const note of notes) total += note.length\nprint(total, notes.length)",
  "const found = await lookup('standup', 3)\nfound.map((entry) => entry.title.toUpperCase()).join(', ')",
];

function benchAgent(mode: "refuse" | "off", turns: number): Agent {
  const findSlot = tool({
    name: "findSlot",
    description: "Find a free slot.",
    params: z.object({ day: z.date().describe("The day."), minutes: z.number().describe("How long.") }),
    returns: z.object({ label: z.string(), start: z.date() }),
    run: async ({ day }) => ({ label: "slot", start: day }),
  });
  const lookup = tool({
    name: "lookup",
    description: "Look meetings up.",
    params: z.object({ title: z.string().describe("A title."), limit: z.number().describe("At most.") }),
    returns: z.array(z.object({ title: z.string(), minutes: z.number() })),
    run: async ({ title }) => [{ title, minutes: 15 }],
  });
  return new Agent({
    role: `bench-${mode}`,
    model: scriptedModel(Array.from({ length: turns }, (_, index) => "```ts\n" + CELLS[index % CELLS.length] + "\n```")),
    tools: [findSlot, lookup],
    typeCheck: mode,
    harness: { maxTurns: 100_000 },
  });
}

async function throughput(mode: "refuse" | "off"): Promise<{ rate: number; microseconds: number | undefined }> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-typed-"));
  try {
    const agent = benchAgent(mode, STEPS + WARMUP_STEPS + JOBS * 4);
    const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [agent] });
    await Promise.all(Array.from({ length: JOBS }, () => statek.submitJob(agent, { vars: { notes: ["a", "b"] } })));
    const worker = statek.worker({ maxConcurrency: JOBS });
    let started = 0;
    let from = 0;
    let cpuFrom: number | undefined;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    await worker.start();
    const timer = setInterval(() => {
      const steps = worker.stats.steps;
      if (started === 0 && steps >= WARMUP_STEPS) {
        started = performance.now();
        from = steps;
        cpuFrom = mainThreadCpuMs();
      } else if (started && steps - from >= STEPS) done();
    }, 5);
    await finished;
    clearInterval(timer);
    const counted = worker.stats.steps - from;
    const rate = (counted * 1000) / (performance.now() - started);
    const cpuTo = mainThreadCpuMs();
    await worker.stop({ graceMs: 0 });
    const failed = (await statek.listJobs({ status: "FAILED" })).length;
    if (failed) throw new Error(`${failed} bench jobs failed: a cell of the bench does not type-check`);
    await statek.close();
    return { rate, microseconds: cpuFrom === undefined || cpuTo === undefined ? undefined : ((cpuTo - cpuFrom) * 1000) / counted };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  const inputs = corpus();
  console.log(`bench/typed-cells (corpus: ${inputs.length} cells from the test suites; median of ${RUNS} runs)`);
  const colds: number[] = [];
  for (let run = 0; run < RUNS; run++) colds.push(await coldStart());
  console.log(`  cold start of a checker thread (to its first answer): ${median(colds).toFixed(0)} ms (runs: ${colds.map((ms) => ms.toFixed(0)).join(", ")})`);
  const runs: LatencyRun[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await latency(inputs));
  const figure = (pick: (run: LatencyRun) => number, format: (value: number) => string) =>
    `${format(median(runs.map(pick)))} (runs: ${runs.map((run) => format(pick(run))).join(", ")})`;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`  warm check, on the checker's thread: p50 ${figure((run) => percentile(run.thread, 0.5), ms)}, p95 ${figure((run) => percentile(run.thread, 0.95), ms)}`);
  console.log(`  warm check, round trip from the scheduling thread: p50 ${figure((run) => percentile(run.roundTrip, 0.5), ms)}, p95 ${figure((run) => percentile(run.roundTrip, 0.95), ms)}`);
  console.log(`  checker heap: warm ${figure((run) => run.heapWarm, mib)}, after the corpus ${figure((run) => run.heapAfter, mib)}; per further job ${figure((run) => run.heapPerJob, (bytes) => `${(bytes / 1024).toFixed(1)} KiB`)}`);
  console.log(`  process RSS with a warm checker thread: ${figure((run) => run.rss, mib)}`);
  for (const mode of ["off", "refuse"] as const) {
    const results: Array<{ rate: number; microseconds: number | undefined }> = [];
    for (let run = 0; run < RUNS; run++) results.push(await throughput(mode));
    const cpu = results.every((result) => result.microseconds !== undefined)
      ? `, scheduling thread ${median(results.map((result) => result.microseconds!)).toFixed(0)} µs CPU/step (runs: ${results.map((result) => result.microseconds!.toFixed(0)).join(", ")})`
      : "";
    console.log(`  steps, typeCheck "${mode}": ${median(results.map((result) => result.rate)).toFixed(0)} steps/s (runs: ${results.map((result) => result.rate.toFixed(0)).join(", ")})${cpu}`);
  }
}
