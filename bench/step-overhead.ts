/**
 * bench/step-overhead: durable no-op steps per second on SQLite (synchronous=FULL, a real file), with 1 job
 * and with 100 concurrent jobs, and the median cost of one host call from a cell (a no-op tool).
 *
 * Run: `npm run bench -- step-overhead` (or `node bench/step-overhead.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const NOOP_CELL = "```ts\n1\n```";

async function stepsPerSecond(jobs: number, stepsPerJob: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-"));
  try {
    const model = scriptedModel(Array.from({ length: jobs * (stepsPerJob + 2) }, () => NOOP_CELL));
    const agent = new Agent({ role: "bench", model, harness: { maxTurns: stepsPerJob + 10 } });
    const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [agent] });
    const ids = await Promise.all(Array.from({ length: jobs }, async () => (await statek.submitJob(agent, { vars: { x: 1 } })).id));
    for (const id of ids) await statek.step(id); // first reply committed; every later step executes one and asks again
    const started = performance.now();
    // runJob steps without building a full job view after every step, as a worker does.
    await Promise.all(ids.map((id) => statek.runJob(id, { maxSteps: stepsPerJob })));
    const seconds = (performance.now() - started) / 1000;
    await statek.close();
    return (jobs * stepsPerJob) / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function hostCallMicros(): Promise<number> {
  const noop = tool({ name: "noop", description: "Does nothing.", run: () => undefined });
  const calls = 20_000;
  const cells = [];
  for (let round = 0; round < 7; round++) {
    cells.push(`const t0 = Date.now(); for (let i = 0; i < ${calls}; i++) {} const t1 = Date.now(); for (let i = 0; i < ${calls}; i++) noop(); const t2 = Date.now(); print(((t2 - t1) - (t1 - t0)) * 1000 / ${calls})`);
  }
  const model = scriptedModel([...cells.map((code) => "```ts\n" + code + "\n```"), "```ts\nexit()\n```"]);
  const agent = new Agent({ role: "bench-calls", model, tools: [noop] });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  const { id } = await statek.submitJob(agent);
  const view = await statek.runJob(id);
  await statek.close();
  const samples = view.console.map(Number).sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

export async function main(): Promise<void> {
  console.log("bench/step-overhead (SQLite file, synchronous=FULL, QuickJS executor)");
  const one = await stepsPerSecond(1, 200);
  console.log(`  1 job:            ${one.toFixed(0)} durable no-op steps/s`);
  const hundred = await stepsPerSecond(100, 20);
  console.log(`  100 jobs at once: ${hundred.toFixed(0)} durable no-op steps/s`);
  const micros = await hostCallMicros();
  console.log(`  host call (no-op tool from a cell): ${micros.toFixed(2)} µs median`);
}

if (import.meta.main) await main();
