/**
 * bench/memory-return: a worker's memory after a burst. Twenty jobs each run one cell that touches 56 MB in its
 * VM (64 MiB bound), all at once; the process's RSS is read before the burst (after a warm-up job, so the
 * sandbox threads and their VM images exist), at its peak, and 10 s after the burst. Goal: back within 100 MiB of
 * before. Each run is a fresh process (RSS is the process's); the figures are medians of three runs.
 *
 * Run: `npm run bench -- memory-return`.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const MiB = 1024 * 1024;
const RUNS = 3;
const JOBS = 20;
const AFTER_MS = 10_000;
const ts = (code: string) => "```ts\n" + code + "\n```";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One run in this process: RSS before, at the peak, and 10 s after the burst (MiB). */
async function run(): Promise<{ before: number; peak: number; after: number }> {
  const touch = ts("{ const parts = []; for (let i = 0; i < 56; i++) parts.push(new Uint8Array(1024 * 1024).fill(i + 1)); print(parts.length) }");
  const agent = new Agent({ role: "burst", model: scriptedModel(Array.from({ length: 2 * (JOBS + 1) }, () => touch)), harness: { maxTurns: 5 } });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  try {
    const warm = (await statek.submitJob(agent)).id;
    await statek.step(warm);
    await statek.step(warm);
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const rss = () => process.memoryUsage().rss / MiB;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    const ids = await Promise.all(Array.from({ length: JOBS }, async () => (await statek.submitJob(agent)).id));
    await Promise.all(ids.map(async (id) => {
      await statek.step(id);
      const view = await statek.step(id);
      if (view.error || !view.console.includes("56")) throw new Error(`a burst job failed: ${view.error ?? view.console.join("\n")}`);
    }));
    peak = Math.max(peak, rss());
    await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
    clearInterval(sampler);
    return { before, peak, after: rss() };
  } finally {
    await statek.close();
  }
}

export async function main(): Promise<void> {
  console.log(`bench/memory-return (QuickJS executor, ${JOBS} jobs touching 56 MB each at once, 64 MiB VMs; each run a fresh process)`);
  const runs: Array<{ before: number; peak: number; after: number }> = [];
  for (let index = 0; index < RUNS; index++) {
    const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--run"], { encoding: "utf8" });
    runs.push(JSON.parse(output.trim().split("\n").at(-1)!) as { before: number; peak: number; after: number });
  }
  const show = (pick: (figures: { before: number; peak: number; after: number }) => number) => `${median(runs.map(pick)).toFixed(0)} MiB (runs: ${runs.map((figures) => pick(figures).toFixed(0)).join(", ")})`;
  console.log(`  worker RSS before the burst: ${show((figures) => figures.before)}`);
  console.log(`  at its peak:                 ${show((figures) => figures.peak)}`);
  console.log(`  10 s after it:               ${show((figures) => figures.after)}`);
  console.log(`  10 s after, above before:    ${show((figures) => figures.after - figures.before)} (goal ≤ 100 MiB)`);
}

if (import.meta.main) {
  if (process.argv.includes("--run")) console.log(JSON.stringify(await run()));
  else await main();
}
