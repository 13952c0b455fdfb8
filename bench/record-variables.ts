/**
 * bench/record-variables: durable steps per second of one job whose workspace holds one variable of 1,000
 * small records (`{ id, name, done, tags: ["a", "b"] }`: 2,000 objects), whose cell flips one field, side by
 * side with an empty workspace's no-op step. The collect encodes the changed variable whole (every record,
 * inside QuickJS) and the host checks and stores its text: this is what a step costs when the data an agent
 * works on is many small objects (see docs/architecture.md, "Known gaps"). Medians of several runs, taken in
 * turn (SQLite file, synchronous=FULL, QuickJS executor).
 *
 * Run: `npm run bench -- record-variables` (or `node bench/record-variables.ts [runs]`).
 */
import { median, stepsPerSecond, type Scenario } from "./workspace-size.ts";

const SCENARIOS: Scenario[] = [
  { label: "empty workspace, no-op cell       ", setup: undefined, cell: "1" },
  {
    label: "1,000 records, cell flips a field",
    setup: "const rows = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: 'row ' + i, done: false, tags: ['a', 'b'] }))",
    cell: "rows[3].done = !rows[3].done",
  },
];

export async function main(runs = 3, steps = 60): Promise<void> {
  console.log(`bench/record-variables (SQLite file, synchronous=FULL, QuickJS executor, 1 job, ${steps} steps, median of ${runs} runs)`);
  const samples = SCENARIOS.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) {
    for (const [index, scenario] of SCENARIOS.entries()) samples[index]!.push(await stepsPerSecond(scenario, steps));
  }
  for (const [index, scenario] of SCENARIOS.entries()) {
    console.log(`  ${scenario.label}: ${median(samples[index]!).toFixed(0)} steps/s  (runs: ${samples[index]!.map((value) => value.toFixed(0)).join(", ")})`);
  }
  console.log(`  empty / 1,000 records: ${(median(samples[0]!) / median(samples[1]!)).toFixed(1)}×`);
}

if (import.meta.main) await main(Number(process.argv[2] ?? 3));
