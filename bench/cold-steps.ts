/**
 * bench/cold-steps: durable steps per second when a process has more active jobs than it keeps warm (* item 4). 1,000 jobs, each with a few variables (an object, a list, a date, a class instance), are stepped
 * round-robin by a fixed number of concurrent steppers, as a worker with `maxConcurrency` would; each cell
 * changes one variable. With the default `warmJobs` (100) a job's VM is evicted long before its next step, so
 * every step builds a VM and restores the workspace; with every job warm (`warmJobs` and `warmMemoryBytes`
 * raised) no step does. Each figure is the median of several runs, taken in turn.
 *
 * Run: `npm run bench -- cold-steps` (or `node bench/cold-steps.ts [runs] [jobs] [memory]`; `memory` uses an
 * in-memory store, which leaves out the fsync'd commits and shows what the VMs alone cost).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const fenced = (code: string) => "```ts\n" + code + "\n```";

const SETUP = `
class Visit { constructor(day, note) { this.day = day; this.note = note; this.done = false } }
const profile = { name: "Ada", tags: ["a", "b"], visits: 0 }
const history = Array.from({ length: 50 }, (_, k) => k)
const since = new Date(86400000)
const next = new Visit(3, "check-up")
`;
const CELL = "profile.visits += 1";

interface Setting {
  label: string;
  warm: boolean;
}

const SETTINGS: Setting[] = [
  { label: "warmJobs default (100): cold steps", warm: false },
  { label: "every job warm                    ", warm: true },
];

async function stepsPerSecond(setting: Setting, jobs: number, rounds: number, concurrency: number, memory: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-"));
  try {
    const model = scriptedModel([...Array.from({ length: jobs }, () => fenced(SETUP)), ...Array.from({ length: jobs * (rounds + 4) }, () => fenced(CELL))]);
    const agent = new Agent({ role: "bench", model, harness: { maxTurns: rounds + 20 } });
    const statek = await Statek.open({
      store: memory ? ":memory:" : join(dir, "bench.db"),
      agents: [agent],
      ...(setting.warm ? { warmJobs: jobs, warmMemoryBytes: jobs * 8 * 1024 * 1024 } : {}),
    });
    const ids: string[] = [];
    for (let i = 0; i < jobs; i++) ids.push((await statek.submitJob(agent)).id);
    // First step: the setup reply is committed; second: it runs and the first cell is asked for.
    await runRounds(statek, ids, 2, concurrency);
    const started = performance.now();
    await runRounds(statek, ids, rounds, concurrency);
    const seconds = (performance.now() - started) / 1000;
    const view = await statek.getJob(ids[0]!);
    await statek.close();
    if (view?.error) throw new Error(`bench job failed: ${view.error}`);
    return (jobs * rounds) / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Steps every job `rounds` times, round-robin, with `concurrency` steps in flight. */
async function runRounds(statek: Statek, ids: readonly string[], rounds: number, concurrency: number): Promise<void> {
  let next = 0;
  const total = ids.length * rounds;
  const stepper = async () => {
    while (next < total) {
      const id = ids[next++ % ids.length]!;
      await statek.runJob(id, { maxSteps: 1 });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, stepper));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function main(runs = 3, jobs = 1000, memory = false, rounds = 3, concurrency = 16): Promise<void> {
  console.log(`bench/cold-steps (${memory ? "SQLite :memory: (no fsync: the VMs' share alone)" : "SQLite file, synchronous=FULL"}, QuickJS executor, ${jobs} jobs stepped round-robin, ${concurrency} at once, ${rounds} rounds, median of ${runs} runs)`);
  const samples = SETTINGS.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) {
    for (const [index, setting] of SETTINGS.entries()) samples[index]!.push(await stepsPerSecond(setting, jobs, rounds, concurrency, memory));
  }
  const medians = samples.map(median);
  for (const [index, setting] of SETTINGS.entries()) {
    const all = samples[index]!.map((value) => value.toFixed(0)).join(", ");
    console.log(`  ${setting.label}: ${medians[index]!.toFixed(0)} steps/s  (runs: ${all})`);
  }
  console.log(`  warm / cold: ${(medians[1]! / medians[0]!).toFixed(2)}×`);
}

if (import.meta.main) await main(Number(process.argv[2] ?? 3), Number(process.argv[3] ?? 1000), process.argv[4] === "memory");
