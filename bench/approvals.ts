/**
 * bench/approvals: human approval and child jobs (SQLite file, synchronous=FULL).
 *
 * - `pendingApprovals()` (its first 100) and `pendingApprovals({ role })` while 1,000 and then 10,000 approval
 *   requests wait, among ten times as many settled futures: served by the index of waiting futures by kind,
 *   their cost should not grow with the settled futures (the role filter reads the requests it skips).
 * - The round trip of an approval in one process: `approve`, then `runJob` replays the suspended cell to the
 *   request and makes the approved call (two journal writes), to `DONE` — median per job.
 * - Starting a child and awaiting its end: the parent's step that starts it and suspends, the child's run, the
 *   parent's step that resumes with its exit value — median per parent.
 *
 * Run: `npm run bench -- approvals` (or `node bench/approvals.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { sampleJob } from "../src/store/store.suite.ts";
import type { Store } from "../src/store/store.ts";

const HOUR = 3_600_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Adds `jobs` jobs, each waiting for one approval request and holding ten settled futures. */
async function addWaiting(store: Store, jobs: number, offset: number): Promise<void> {
  for (let start = 0; start < jobs; start += 500) {
    await Promise.all(Array.from({ length: Math.min(500, jobs - start) }, async (_, index) => {
      const job = sampleJob({ status: "SUSPENDED", role: index % 2 ? "payer" : "other" });
      await store.insertJob(job, [], []);
      const lease = (await store.claimJob(job.id, "bench", HOUR))!;
      const fence = { owner: lease.owner, epoch: lease.epoch };
      const n = offset + start + index;
      const settled = Array.from({ length: 10 }, (__, k) => ({ key: `${job.id}:t${k}`, jobId: job.id, kind: "timer" as const, wakeAt: 1, data: null }));
      await store.createFutures(job.id, fence, [...settled, { key: `${job.id}:0:${n}:approval`, jobId: job.id, kind: "approval", wakeAt: null, data: { tool: "pay", args: "{}", argsJson: {}, resume: "call", role: job.role, requestedAt: n } }]);
      await Promise.all(settled.map((future) => store.settleFuture(future.key, { state: "resolved", value: null, door: "time" })));
    }));
  }
}

async function listing(statek: Statek): Promise<void> {
  let waiting = 0;
  for (const target of [1_000, 10_000]) {
    await addWaiting(statek.store, target - waiting, waiting);
    waiting = target;
    const all: number[] = [];
    const byRole: number[] = [];
    for (let run = 0; run < 30; run++) {
      let begin = performance.now();
      await statek.pendingApprovals({ limit: 100 });
      all.push(performance.now() - begin);
      begin = performance.now();
      await statek.pendingApprovals({ role: "payer", limit: 100 });
      byRole.push(performance.now() - begin);
    }
    console.log(`  ${target.toLocaleString("en-US").padStart(6)} waiting requests: pendingApprovals() ${median(all).toFixed(2)} ms, { role } ${median(byRole).toFixed(2)} ms (medians, first 100)`);
  }
}

async function roundTrips(directory: string): Promise<void> {
  const jobs = 20;
  const pay = tool({ name: "pay", description: "Pays.", params: z.object({ amount: z.number().describe("The amount.") }), needsApproval: true, run: ({ amount }) => amount });
  const payer = new Agent({ role: "payer", tools: [pay], model: scriptedModel(Array.from({ length: jobs }, () => "```ts\nexit(await pay(7))\n```")) });
  const researcher = new Agent({ role: "researcher", model: scriptedModel(Array.from({ length: jobs }, () => "```ts\nexit(topic)\n```")) });
  const research = tool({ name: "research", description: "Starts a child.", params: z.object({ topic: z.string().describe("Topic.") }), run: ({ topic }, ctx) => ctx.startJob(researcher, { vars: { topic } }) });
  const lead = new Agent({ role: "lead", tools: [research], model: scriptedModel(Array.from({ length: jobs }, () => "```ts\nexit(await research('owls'))\n```")) });
  const statek = await Statek.open({ store: join(directory, "round-trips.db"), agents: [payer, researcher, lead] });
  try {
    const approvals: number[] = [];
    for (let n = 0; n < jobs; n++) {
      const { id } = await statek.submitJob(payer);
      await statek.runJob(id);
      const [request] = await statek.pendingApprovals({ jobId: id });
      const begin = performance.now();
      await statek.approve(id, request!.requestId);
      const view = await statek.runJob(id);
      approvals.push(performance.now() - begin);
      if (view.status !== "DONE") throw new Error(`the payer job ended ${view.status}`);
    }
    const children: number[] = [];
    for (let n = 0; n < jobs; n++) {
      const { id } = await statek.submitJob(lead);
      await statek.step(id); // asks the model: the cell is pending
      const begin = performance.now();
      await statek.runJob(id);
      const [child] = await statek.listJobs({ parentId: id });
      await statek.runJob(child!.id);
      const view = await statek.runJob(id);
      children.push(performance.now() - begin);
      if (view.status !== "DONE") throw new Error(`the lead job ended ${view.status}`);
    }
    console.log(`  approve → approved call made → DONE: ${median(approvals).toFixed(1)} ms median (${jobs} jobs, one at a time)`);
    console.log(`  child started → child DONE → parent resumed with its value: ${median(children).toFixed(1)} ms median (parent start-and-suspend step, child run, parent resume)`);
  } finally {
    await statek.close();
  }
}

/** Prints the figures. */
export async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "statek-bench-approvals-"));
  try {
    console.log("approvals (SQLite file, synchronous=FULL)");
    const statek = await Statek.open({ store: join(directory, "listing.db") });
    try {
      await listing(statek);
    } finally {
      await statek.close();
    }
    await roundTrips(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
