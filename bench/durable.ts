/**
 * bench/durable: what durability costs. On a real SQLite file (synchronous=FULL), QuickJS executor:
 * - replay cost per journal entry: resuming a suspended cell whose journal holds N recorded tool calls, against
 *   the same cell with none;
 * - resume latency: from `pushMessage` to the waiting cell running again, with 50 variables in the workspace
 *   (arrays of 1,000 items, maps, dates, class instances), in this warm process (goal p50 ≤ 5 ms);
 * - a side-effecting tool call (intent and result made durable) against a read-only one, alone and with 100
 *   jobs stepping at once (their journal writes share fsyncs: group commit).
 *
 * Run: `npm run bench -- durable`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/** A Statek on a fresh SQLite file; `done` closes it and removes the file. */
async function openOnFile(agents: Agent[]) {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-durable-"));
  const statek = await Statek.open({ store: join(dir, "bench.db"), agents });
  return { statek, done: async () => { await statek.close(); rmSync(dir, { recursive: true, force: true }); } };
}

const effect = tool({ name: "effect", description: "A side effect (journaled).", run: () => 1 });
const read = tool({ name: "read", description: "A read (not journaled).", readOnly: true, run: () => 1 });

/** Milliseconds to resume a cell suspended after `calls` recorded tool calls (median of `rounds` jobs). */
async function resumeMs(calls: number, rounds: number): Promise<number> {
  const code = `for (let i = 0; i < ${calls}; i++) await effect()\nconst m = await waitForMessage()\nexit(m)`;
  const agent = new Agent({ role: `replay-${calls}`, tools: [effect], model: scriptedModel(Array.from({ length: rounds }, () => ts(code))) });
  const { statek, done } = await openOnFile([agent]);
  try {
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const { id } = await statek.submitJob(agent);
      if ((await statek.runJob(id)).status !== "SUSPENDED") throw new Error("the cell did not suspend");
      await statek.pushMessage(id, "go");
      const started = performance.now();
      const view = await statek.runJob(id);
      samples.push(performance.now() - started);
      if (view.status !== "DONE") throw new Error(`the job ended ${view.status}: ${view.error}`);
    }
    return median(samples);
  } finally {
    await done();
  }
}

/** The code that fills a workspace with 50 variables of the kinds the issue names. */
function fiftyVariables(): string {
  const lines = ["class Item { constructor(n) { this.n = n; this.tags = ['a', 'b'] } }"];
  for (let i = 0; i < 50; i++) {
    const kind = i % 4;
    if (kind === 0) lines.push(`const v${i} = Array.from({ length: 1000 }, (_, k) => k * ${i})`);
    else if (kind === 1) lines.push(`const v${i} = new Map(Array.from({ length: 100 }, (_, k) => ['k' + k, { k, at: new Date(${i} * 1000) }]))`);
    else if (kind === 2) lines.push(`const v${i} = new Date(${i} * 86400000)`);
    else lines.push(`const v${i} = Array.from({ length: 20 }, (_, k) => new Item(k + ${i}))`);
  }
  return lines.join("\n");
}

/** Latencies (ms) from pushMessage to the waiting cell running again, over `rounds` waits. */
async function resumeLatencies(rounds: number): Promise<number[]> {
  const arrived: number[] = [];
  const mark = tool({ name: "mark", description: "Notes when the cell ran again.", readOnly: true, run: () => void arrived.push(performance.now()) });
  const cells = [ts(fiftyVariables()), ...Array.from({ length: rounds }, () => ts("const m = await waitForMessage()\nmark()\nv0[0] = m")), ts("exit()")];
  const agent = new Agent({ role: "resume", tools: [mark], model: scriptedModel(cells), harness: { maxTurns: rounds + 10 } });
  const { statek, done } = await openOnFile([agent]);
  try {
    const { id } = await statek.submitJob(agent);
    let view = await statek.runJob(id);
    const latencies: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (view.status !== "SUSPENDED") throw new Error(`expected a waiting job, got ${view.status}: ${view.error}`);
      const pushed = performance.now();
      await statek.pushMessage(id, String(round));
      view = await statek.runJob(id);
      latencies.push(arrived[round]! - pushed);
    }
    return latencies;
  } finally {
    await done();
  }
}

/** Microseconds per tool call (kind `tool`) in cells of `calls` calls each, with `jobs` jobs at once. */
async function callMicros(callTool: typeof effect, jobs: number, calls: number): Promise<number> {
  const code = `for (let i = 0; i < ${calls}; i++) await ${callTool.name}()`;
  const agent = new Agent({ role: `calls-${callTool.name}-${jobs}`, tools: [callTool], model: scriptedModel(Array.from({ length: jobs * 3 }, () => ts(code))) });
  const { statek, done } = await openOnFile([agent]);
  try {
    const ids = await Promise.all(Array.from({ length: jobs }, async () => (await statek.submitJob(agent)).id));
    for (const id of ids) await statek.step(id); // the first reply committed; the next step runs it
    const started = performance.now();
    await Promise.all(ids.map((id) => statek.runJob(id, { maxSteps: 1 })));
    return ((performance.now() - started) * 1000) / (jobs * calls);
  } finally {
    await done();
  }
}

export async function main(): Promise<void> {
  console.log("bench/durable (SQLite file, synchronous=FULL, QuickJS executor)");
  const base = await resumeMs(0, 9);
  for (const calls of [100, 1000]) {
    const ms = await resumeMs(calls, 5);
    console.log(`  resume a cell with ${calls} recorded calls: ${ms.toFixed(1)} ms median (none: ${base.toFixed(1)} ms) → ${(((ms - base) * 1000) / calls).toFixed(1)} µs per recorded call replayed`);
  }
  const latencies = await resumeLatencies(60);
  console.log(`  resume latency, pushMessage → the cell running again, 50 variables: p50 ${median(latencies).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms (goal p50 ≤ 5 ms)`);
  for (const jobs of [1, 100]) {
    const calls = jobs === 1 ? 400 : 20;
    const sideEffecting = await callMicros(effect, jobs, calls);
    const readOnly = await callMicros(read, jobs, calls);
    console.log(`  ${jobs === 1 ? "1 job:   " : "100 jobs:"} side-effecting tool call ${sideEffecting.toFixed(0)} µs (two durable writes), read-only ${readOnly.toFixed(0)} µs — per call, wall time over all jobs`);
  }
}

if (import.meta.main) await main();
