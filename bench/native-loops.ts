/**
 * bench/native-loops: what four cells stuck in native loops (`Array.prototype.includes` over a huge
 * array-like, which QuickJS never interrupts) do to everything else. Prints the scheduling thread's event-loop
 * delay (p50/p99/max, `perf_hooks.monitorEventLoopDelay`) and the steps an ordinary job completed meanwhile,
 * against a quiet baseline of the same ordinary job alone.
 *
 * Run: `npm run bench -- native-loops`.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const NATIVE_LOOP = "Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)";
const CELL_TIME_MS = 1_000;
const WINDOW_MS = 8_000;

const ts = (code: string) => "```ts\n" + code + "\n```";

async function run(spinners: number): Promise<{ p50: number; p99: number; max: number; ordinarySteps: number; spins: number }> {
  const spinner = new Agent({ role: "spinner", model: scriptedModel(Array.from({ length: 1_000 }, () => ts(NATIVE_LOOP))), harness: { maxTurns: 1_000, maxExceptions: 1_000, maxConsecutiveExceptions: 1_000 } });
  const ordinary = new Agent({ role: "ordinary", model: scriptedModel(Array.from({ length: 100_000 }, () => ts("counter += 1"))), harness: { maxTurns: 100_000 } });
  const statek = await Statek.open({ store: ":memory:", agents: [spinner, ordinary], workspaceLimits: { cellTimeMs: CELL_TIME_MS } });
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let stop = false;
  let ordinarySteps = 0;
  let spins = 0;
  const spinning = Array.from({ length: spinners }, async () => {
    const { id } = await statek.submitJob(spinner);
    while (!stop) {
      await statek.runJob(id, { maxSteps: 1 });
      spins++;
    }
  });
  const { id } = await statek.submitJob(ordinary, { vars: { counter: 0 } });
  await statek.runJob(id, { maxSteps: 2 });
  // Measure the steady state: the spinning cells have been stopped (and their threads replaced) at least once.
  if (spinners) await new Promise((resolve) => setTimeout(resolve, 2 * CELL_TIME_MS));
  histogram.enable();
  const until = performance.now() + WINDOW_MS;
  while (performance.now() < until) {
    await statek.runJob(id, { maxSteps: 1 });
    ordinarySteps++;
  }
  histogram.disable();
  stop = true;
  await Promise.all(spinning);
  await statek.close();
  const ms = (ns: number) => ns / 1e6;
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), ordinarySteps, spins };
}

export async function main(): Promise<void> {
  console.log(`bench/native-loops (QuickJS executor on sandbox threads; cellTimeMs ${CELL_TIME_MS}; ${WINDOW_MS / 1000} s windows)`);
  const quiet = await run(0);
  console.log(`  ordinary job alone:           event-loop delay p50 ${quiet.p50.toFixed(1)} ms, p99 ${quiet.p99.toFixed(1)} ms, max ${quiet.max.toFixed(1)} ms; ${(quiet.ordinarySteps / (WINDOW_MS / 1000)).toFixed(0)} steps/s`);
  const loud = await run(4);
  console.log(`  beside 4 cells in native loops: event-loop delay p50 ${loud.p50.toFixed(1)} ms, p99 ${loud.p99.toFixed(1)} ms (goal ≤ 20 ms), max ${loud.max.toFixed(1)} ms; ${(loud.ordinarySteps / (WINDOW_MS / 1000)).toFixed(0)} steps/s (${loud.spins} native-loop cells stopped)`);
}

if (import.meta.main) await main();
