/**
 * bench/workspace-size: durable steps per second of one job on SQLite (synchronous=FULL, a real file) whose
 * workspace holds 50 variables — 13 arrays of 1,000 numbers, 13 maps of 20 entries, 12 dates, 12 instances of a
 * workspace class (plus the class) — and whose cell changes one of them (an account, or a list of 1,000
 * numbers, which is encoded again), side by side with an empty workspace running a no-op cell, the same 50
 * variables with a no-op cell, and the list alone with the same cell (what encoding the changed list itself
 * costs). A step's cost should not grow with the variables the cell does not touch (goal: the
 * 50-variable step within 1.5× of the empty one). Each figure is the median of several runs, taken in turn so
 * that a noisy neighbour skews them alike.
 *
 * Run: `npm run bench -- workspace-size` (or `node bench/workspace-size.ts [runs]`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const fenced = (code: string) => "```ts\n" + code + "\n```";

/** Makes the 50 variables (one cell, so the workspace is built once per run). */
const SETUP = `
class Account { constructor(id, owner) { this.id = id; this.owner = owner; this.balance = 0; this.tags = ["a", "b"] } }
for (let i = 0; i < 13; i++) globalThis["list" + i] = Array.from({ length: 1000 }, (_, k) => k * i)
for (let i = 0; i < 13; i++) globalThis["index" + i] = new Map(Array.from({ length: 20 }, (_, k) => ["key" + k, k]))
for (let i = 0; i < 12; i++) globalThis["when" + i] = new Date(86400000 * i)
for (let i = 0; i < 12; i++) globalThis["account" + i] = new Account(i, "owner " + i)
`;
/** A job's workspace setup and the cell each measured step runs. */
export interface Scenario {
  label: string;
  setup: string | undefined;
  cell: string;
}

const SCENARIOS: Scenario[] = [
  { label: "empty workspace, no-op cell           ", setup: undefined, cell: "1" },
  { label: "50 variables, cell changes an account", setup: SETUP, cell: "account3.balance += 1" },
  { label: "50 variables, cell changes a list     ", setup: SETUP, cell: "list7[3] += 1" },
  { label: "50 variables, no-op cell              ", setup: SETUP, cell: "1" },
  // The same list and cell with no other variable: what re-encoding the changed variable itself costs.
  { label: "the list alone, cell changes it       ", setup: "const list7 = Array.from({ length: 1000 }, (_, k) => k * 7)", cell: "list7[3] += 1" },
];

/** Durable steps per second of one job on a fresh SQLite file: the setup cell, then `steps` runs of the cell. */
export async function stepsPerSecond(scenario: Scenario, steps: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-"));
  try {
    const replies = [...(scenario.setup ? [fenced(scenario.setup)] : []), ...Array.from({ length: steps + 20 }, () => fenced(scenario.cell))];
    const model = scriptedModel(replies);
    const agent = new Agent({ role: "bench", model, harness: { maxTurns: steps + 30 } });
    const statek = await Statek.open({ store: join(dir, "bench.db"), agents: [agent] });
    const { id } = await statek.submitJob(agent);
    // The first step commits the first reply; the next runs it (the setup, when there is one) and asks again.
    await statek.step(id);
    if (scenario.setup) await statek.step(id);
    await statek.runJob(id, { maxSteps: 5 }); // warm-up
    const started = performance.now();
    await statek.runJob(id, { maxSteps: steps });
    const seconds = (performance.now() - started) / 1000;
    const view = await statek.getJob(id);
    await statek.close();
    if (view?.error) throw new Error(`bench job failed: ${view.error}`);
    return steps / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function main(runs = 5, steps = 300): Promise<void> {
  console.log(`bench/workspace-size (SQLite file, synchronous=FULL, QuickJS executor, 1 job, ${steps} steps, median of ${runs} runs)`);
  const samples = SCENARIOS.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) {
    for (const [index, scenario] of SCENARIOS.entries()) samples[index]!.push(await stepsPerSecond(scenario, steps));
  }
  const medians = samples.map(median);
  for (const [index, scenario] of SCENARIOS.entries()) {
    const all = samples[index]!.map((value) => value.toFixed(0)).join(", ");
    console.log(`  ${scenario.label}: ${medians[index]!.toFixed(0)} steps/s  (runs: ${all})`);
  }
  // Each round's own ratio too: a round's scenarios run back to back, so a slow spell of the machine skews
  // both sides of its ratio alike, where it only moves one side of a ratio of medians.
  for (const index of [1, 2]) {
    const rounds = samples[0]!.map((empty, round) => empty / samples[index]![round]!);
    console.log(
      `  empty / ${SCENARIOS[index]!.label.trim()}: ${(medians[0]! / medians[index]!).toFixed(2)}× (goal ≤ 1.5×); ` +
        `median of the rounds' ratios ${median(rounds).toFixed(2)}× (rounds: ${rounds.map((ratio) => ratio.toFixed(2)).join(", ")})`,
    );
  }
  console.log(`  the list alone / the list among 50 variables: ${(medians[4]! / medians[2]!).toFixed(2)}× (what the 49 untouched variables add)`);
}

if (import.meta.main) await main(Number(process.argv[2] ?? 5));
