/**
 * bench/store-writes: the store alone (SQLite file, synchronous=FULL), without a job runner.
 *
 * - A side-effecting crossing's two durable writes — the journal's intent, then its result — each awaited, for
 *   1 job and for 100 jobs at once (group commit shares the transactions), as median latency per crossing and
 *   crossings per second.
 * - A claim (`claimRunnable`, 1 job) and `nextClaim` while 1,000 and then 50,000 suspended jobs wait: served
 *   by the partial indexes, their cost should not grow with the waiting jobs.
 *
 * Run: `npm run bench -- store-writes` (or `node bench/store-writes.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import { sampleJob } from "../src/store/store.suite.ts";
import type { Fence, Store } from "../src/store/store.ts";

const HOUR = 3_600_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function claimed(store: Store, jobs: number): Promise<Array<{ id: string; fence: Fence }>> {
  const rows = Array.from({ length: jobs }, () => sampleJob({ status: "STARTED" }));
  await Promise.all(rows.map((job) => store.insertJob(job, [], [])));
  const leases = await Promise.all(rows.map((job) => store.claimJob(job.id, "bench", HOUR)));
  return leases.map((lease) => ({ id: lease!.jobId, fence: { owner: lease!.owner, epoch: lease!.epoch } }));
}

/** Each job makes `crossings` crossings of two awaited journal writes; returns per-crossing latencies (ms) and the rate. */
async function crossings(store: Store, jobs: number, crossings: number): Promise<{ latencies: number[]; perSecond: number }> {
  const held = await claimed(store, jobs);
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(held.map(async ({ id, fence }) => {
    for (let seq = 0; seq < crossings; seq++) {
      const begin = performance.now();
      await store.appendJournal(id, fence, 0, [{ index: 2 * seq, data: { seq, kind: "tool", target: "pay", state: "intent" } }]);
      await store.appendJournal(id, fence, 0, [{ index: 2 * seq + 1, data: { seq, state: "done", result: { ok: true } } }]);
      latencies.push(performance.now() - begin);
    }
  }));
  return { latencies, perSecond: (jobs * crossings) / ((performance.now() - started) / 1000) };
}

async function claimCost(store: Store, waiting: number): Promise<{ claimMs: number; nextClaimMs: number }> {
  const now = Date.now();
  for (let start = 0; start < waiting; start += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, waiting - start) }, (_, index) =>
      sampleJob({ status: "SUSPENDED", wakeAt: index % 2 ? null : now + HOUR + start + index }));
    await Promise.all(batch.map((job) => store.insertJob(job, [], [])));
  }
  const claims: number[] = [];
  const wakes: number[] = [];
  for (let round = 0; round < 50; round++) {
    await store.insertJob(sampleJob({ status: "READY" }), [], []);
    let begin = performance.now();
    await store.claimRunnable("bench", HOUR, 1);
    claims.push(performance.now() - begin);
    begin = performance.now();
    await store.nextClaim();
    wakes.push(performance.now() - begin);
  }
  return { claimMs: median(claims), nextClaimMs: median(wakes) };
}

export async function main(): Promise<void> {
  console.log("bench/store-writes (SQLite file, synchronous=FULL)");
  const directory = mkdtempSync(join(tmpdir(), "statek-bench-store-"));
  let file = 0;
  const open = () => createSqliteStore({ path: join(directory, `bench-${++file}.db`) });
  try {
    for (const jobs of [1, 100]) {
      const store = open();
      const result = await crossings(store, jobs, jobs === 1 ? 200 : 20);
      await store.close();
      console.log(`  ${String(jobs).padStart(3)} job(s): a crossing's two journal writes ${median(result.latencies).toFixed(2)} ms median, ` +
        `${result.perSecond.toFixed(0)} crossings/s`);
    }
    const store = open();
    let waiting = 0;
    for (const target of [1_000, 50_000]) {
      const { claimMs, nextClaimMs } = await claimCost(store, target - waiting);
      waiting = target;
      console.log(`  ${target.toLocaleString("en-US").padStart(6)} suspended jobs: claimRunnable ${claimMs.toFixed(2)} ms, nextClaim ${nextClaimMs.toFixed(3)} ms (medians)`);
    }
    await store.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
