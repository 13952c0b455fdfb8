/**
 * bench/tool-calls: the cost of one side-effecting tool call in a cell that makes many. Each call writes its
 * intent and its result durably (two journal appends); the cost of one must not depend on how many the cell
 * made before it. One cell makes 1,000 calls, another 10,000, on a SQLite file (`synchronous=FULL`) and in
 * memory; each figure is the median of three runs after a warm-up job (the sandbox thread and its VMs are made
 * before anything is timed). Goal: the 10,000-call cell's cost per call at most 1.2 times the 1,000-call cell's.
 * Then how long an endless loop of such calls runs before `maxHostCalls` (20,000) ends it, in memory.
 *
 * Run: `npm run bench -- tool-calls`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const RUNS = 3;

const effect = tool({ name: "effect", description: "A side effect (journaled).", run: () => 1 });

/** Microseconds per call of one cell making `calls` side-effecting calls, on `store`. */
async function microsPerCall(store: string, calls: number): Promise<number> {
  const code = (n: number) => ts(`for (let i = 0; i < ${n}; i++) await effect()`);
  const agent = new Agent({ role: `calls-${calls}`, tools: [effect], model: scriptedModel([code(10), code(calls), code(calls)]), harness: { maxTurns: 10 } });
  const statek = await Statek.open({ store, agents: [agent], workspaceLimits: { cellTimeMs: 600_000, maxHostCalls: 1_000_000 } });
  try {
    const { id } = await statek.submitJob(agent);
    await statek.step(id); // the warm-up reply is committed
    await statek.step(id); // the warm-up cell runs (a sandbox thread, a VM); the measured reply is committed
    const started = performance.now();
    const view = await statek.step(id);
    const elapsed = performance.now() - started;
    if (view.error) throw new Error(`the cell failed: ${view.error}`);
    return (elapsed * 1000) / calls;
  } finally {
    await statek.close();
  }
}

/** Seconds until `maxHostCalls` ends a cell that calls a side-effecting tool for ever. */
async function secondsToLimit(): Promise<{ seconds: number; error: string }> {
  const agent = new Agent({ role: "endless", tools: [effect], model: scriptedModel([ts("for (;;) await effect()"), "done"]) });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], workspaceLimits: { cellTimeMs: 600_000, maxHostCalls: 20_000 } });
  try {
    const { id } = await statek.submitJob(agent);
    await statek.step(id);
    const started = performance.now();
    const view = await statek.step(id);
    return { seconds: (performance.now() - started) / 1000, error: view.console.find((entry) => entry.startsWith("ResourceLimitError")) ?? "(no limit error)" };
  } finally {
    await statek.close();
  }
}

export async function main(): Promise<void> {
  console.log("bench/tool-calls (QuickJS executor; one cell, side-effecting tool, two durable writes per call)");
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-calls-"));
  try {
    for (const [label, store] of [["SQLite file, FULL", () => join(dir, `${Math.random()}.db`)], ["SQLite :memory:", () => ":memory:"]] as const) {
      const figures = new Map<number, number>();
      for (const calls of [1_000, 10_000]) {
        const runs: number[] = [];
        for (let run = 0; run < RUNS; run++) runs.push(await microsPerCall(store(), calls));
        figures.set(calls, median(runs));
        console.log(`  ${label}: ${calls.toLocaleString("en-US")} calls in one cell: ${median(runs).toFixed(0)} µs per call (runs: ${runs.map((run) => run.toFixed(0)).join(", ")})`);
      }
      console.log(`  ${label}: ratio 10,000 / 1,000 = ${(figures.get(10_000)! / figures.get(1_000)!).toFixed(2)} (goal ≤ 1.2)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const runs: Array<{ seconds: number; error: string }> = [];
  for (let run = 0; run < RUNS; run++) runs.push(await secondsToLimit());
  console.log(`  an endless loop of such calls, maxHostCalls 20,000: ended after ${median(runs.map((run) => run.seconds)).toFixed(1)} s (runs: ${runs.map((run) => run.seconds.toFixed(1)).join(", ")}) with ${runs[0]!.error}`);
}

if (import.meta.main) await main();
