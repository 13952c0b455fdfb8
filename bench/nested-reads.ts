/**
 * bench/nested-reads: the scheduling thread while cells abuse the reads the host makes in a VM during a host call
 * (nested runtime entries). Four jobs run at once, each a cell that, for about three seconds, calls a tool that
 * reads a workspace variable whose getter never returns, every 20 ms: from inside the tool's `run` (`peek()`,
 * `ctx.variable("trap")`: the scheduling thread waits a few milliseconds at most, once per cell), and, in a
 * second phase, by argument binding (`twice("trap")`: read without blocking the scheduling thread; the executor's
 * entry limit is 200 ms, so the getter spins 200 ms per read on its sandbox thread). The event-loop delay of the
 * scheduling thread is sampled throughout each phase (`monitorEventLoopDelay`, 5 ms resolution). Goal: p99 ≤
 * 20 ms. Medians of three runs; on a machine with fewer cores than busy threads the figures include waiting for a
 * core.
 *
 * Run: `npm run bench -- nested-reads`.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { createQuickJsExecutor } from "../src/workspace/quickjs/quickjs-executor.ts";

const RUNS = Number(process.env.RUNS ?? 3);
const CELLS = 4;
const ts = (code: string) => "```ts\n" + code + "\n```";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const twice = tool({ name: "twice", description: "Doubles a number.", params: z.object({ x: z.number().describe("x") }), readOnly: true, run: ({ x }) => x * 2 });
const peek = tool({ name: "peek", description: "Reads the variable trap.", readOnly: true, run: (_args, ctx) => ctx.variable("trap") !== undefined });

/** A cell that reads `trap` every 20 ms for three seconds, with `read`; `hostile`: its getter never returns. */
const abuse = (read: string, hostile: boolean) => [
  hostile ? "globalThis.trap = { get value() { for (;;) {} } }" : "globalThis.trap = { value: 1 }",
  "const until = Date.now() + 3_000",
  "let reads = 0",
  "while (Date.now() < until) {",
  `  try { ${read} } catch {}`,
  "  reads++",
  "  await new Promise((resolve) => setTimeout(resolve, 20))",
  "}",
  "print(reads)",
].join("\n");

interface Figures {
  p50: number;
  p99: number;
  max: number;
  reads: number;
}

/** One phase: the scheduling thread's event-loop delay while the cells read with `read` (ms). */
async function phase(read: string, hostile: boolean): Promise<Figures> {
  const agent = new Agent({ role: "abuse", tools: [twice, peek], model: scriptedModel(Array.from({ length: 2 * CELLS }, () => ts(abuse(read, hostile)))), harness: { maxTurns: 3 } });
  const executor = createQuickJsExecutor({ invokeTimeMs: 200 });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], executor, workspaceLimits: { cellTimeMs: 60_000, maxHostCalls: 1_000_000 } });
  try {
    const ids = await Promise.all(Array.from({ length: CELLS }, async () => (await statek.submitJob(agent)).id));
    for (const id of ids) await statek.step(id);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const views = await Promise.all(ids.map((id) => statek.step(id)));
    delay.disable();
    const reads = views.reduce((sum, view) => sum + Number(view.console.find((entry) => /^\d+$/.test(entry)) ?? 0), 0);
    return { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, reads };
  } finally {
    await statek.close();
    executor.close();
  }
}

export async function main(): Promise<void> {
  console.log(`bench/nested-reads (QuickJS executor; ${CELLS} cells at once reading a variable whose getter never returns, every 20 ms for 3 s)`);
  const phases = [
    ["the same cells reading an ordinary variable (the machine's own figure)", "peek()", false],
    ["ctx.variable inside a tool's run", "peek()", true],
    ["argument binding by variable name", "twice('trap')", true],
  ] as const;
  for (const [label, read, hostile] of phases) {
    const runs: Figures[] = [];
    for (let index = 0; index < RUNS; index++) runs.push(await phase(read, hostile));
    const show = (pick: (figures: Figures) => number) => `${median(runs.map(pick)).toFixed(1)} ms (runs: ${runs.map((figures) => pick(figures).toFixed(1)).join(", ")})`;
    console.log(`  ${label}: event-loop delay of the scheduling thread p50 ${show((figures) => figures.p50)}`);
    console.log(`    p99 ${show((figures) => figures.p99)} (goal ≤ 20 ms); max ${show((figures) => figures.max)}; reads made ${median(runs.map((figures) => figures.reads))}`);
  }
}

if (import.meta.main) await main();
