/**
 * The worker in one process: it claims runnable jobs, wakes suspended ones when their timer is due
 * or a message is pushed, keeps at most `maxConcurrency` steps in flight, and stops gracefully.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel, tool } from "../index.ts";
import { newProcessOwner } from "./process-owner.ts";
import { z } from "zod";

/** An agent that never asks the model: its jobs run warmup code, which exits. */
function warmupAgent(role = "sleeper", tools: Parameters<typeof tool>[0][] = []) {
  return new Agent({ role, tools: tools.map((definition) => tool(definition)), model: scriptedModel([]) });
}

async function open_(options: { agents: Agent[]; leaseMs?: number }) {
  const dir = mkdtempSync(join(tmpdir(), "statek-worker-"));
  const statek = await Statek.open({ store: join(dir, "statek.db"), ...options });
  return { statek, dir, close: async () => { await statek.close(); rmSync(dir, { recursive: true, force: true }); } };
}

/** Resolves once `check` is true, polling the store (the test's own observation, not the worker's). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The lease owner of a worker process of this machine (same boot and PID namespace) that has died. */
async function deadOwner(): Promise<string> {
  const space = newProcessOwner().split(":")[3];
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await once(child, "spawn");
  const owner = `${hostname()}:${child.pid}:0badf00d:${space}`;
  child.kill("SIGKILL");
  await once(child, "exit");
  return owner;
}

const allDone = (statek: Statek, count: number) => async () => (await statek.listJobs({ status: "DONE", limit: count + 1 })).length === count;

describe("statek.worker", () => {
  it("runs submitted jobs to the end, waking each when its timers are due", async () => {
    const agent = warmupAgent();
    const env = await open_({ agents: [agent] });
    const worker = env.statek.worker({ maxConcurrency: 4 });
    try {
      await worker.start();
      const ids = [];
      for (let n = 0; n < 12; n++) {
        const { id } = await env.statek.submitJob(agent, { warmup: `const t0 = Date.now()\nawait sleep(${150 + n * 10})\nawait sleep(120)\nexit(Date.now() - t0)` });
        ids.push(id);
      }
      await eventually(allDone(env.statek, 12));
      for (const id of ids) {
        const view = (await env.statek.getJob(id))!;
        assert.ok((view.exitStatus as number) >= 270, `slept both times (${String(view.exitStatus)} ms)`);
      }
      // A reader may see a commit before its fsync completes; the worker counts a step once it has (SQLite FULL,
      // sqlite-wal-sync.ts): the last job's count follows within that fsync.
      await eventually(async () => worker.stats.running === 0, 5_000);
      const stats = worker.stats;
      assert.equal(stats.done, 12);
      assert.equal(stats.running, 0);
      assert.ok(stats.steps >= 36, `three steps per job at least (${stats.steps})`);
    } finally {
      await worker.stop();
      await env.close();
    }
  });

  it("takes over at once the jobs of a worker process of this machine that is gone, and waits out anyone else's lease", { skip: existsSync("/proc/self/ns/pid") ? false : "no /proc here: nobody is judged gone" }, async () => {
    const agent = warmupAgent("heir");
    const env = await open_({ agents: [agent] });
    const activities: string[] = [];
    const worker = env.statek.worker({ onActivity: (activity) => void (activity.kind === "owner-gone" && activities.push(`${activity.owner} ${activity.leases}`)) });
    try {
      const [orphan, foreign] = [await env.statek.submitJob(agent, { warmup: "exit('taken over')" }), await env.statek.submitJob(agent, { warmup: "exit('waited')" })];
      // A worker process of this machine (same boot and PID namespace) that died holding a lease for an hour...
      const dead = await deadOwner();
      assert.ok(await env.statek.store.claimJob(orphan.id, dead, 3_600_000));
      // ...and one of another machine, whose lease must run out first.
      assert.ok(await env.statek.store.claimJob(foreign.id, "elsewhere:4242:0badf00d:ffffffffffff", 5_000));
      await worker.start();
      await eventually(async () => (await env.statek.getJob(orphan.id))!.status === "DONE", 10_000);
      assert.deepEqual(activities, [`${dead} 1`]);
      assert.equal((await env.statek.getJob(foreign.id))!.status, "READY", "another machine's live lease holds");
      await eventually(async () => (await env.statek.getJob(foreign.id))!.status === "DONE", 30_000);
      assert.equal((await env.statek.getJob(foreign.id))!.exitStatus, "waited");
    } finally {
      await worker.stop();
      await env.close();
    }
  });

  it("takes over a gone worker's jobs while its own slots are full, though it started on an empty store", { skip: existsSync("/proc/self/ns/pid") ? false : "no /proc here: nobody is judged gone" }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const agent = warmupAgent("busy", [{ name: "hold", description: "Waits for the test.", params: z.object({}), run: () => held }]);
    const env = await open_({ agents: [agent] });
    const activities: string[] = [];
    // It looks at an empty store (nothing leased), then its one slot stays busy: it has no reason to look again.
    const worker = env.statek.worker({ maxConcurrency: 1, onActivity: (activity) => void (activity.kind === "owner-gone" && activities.push(activity.owner)) });
    try {
      await worker.start();
      const busy = await env.statek.submitJob(agent, { warmup: "await hold({})\nexit('held')" });
      await eventually(async () => worker.stats.running === 1, 10_000);
      const orphan = await env.statek.submitJob(agent, { warmup: "exit('taken over')" });
      const dead = await deadOwner();
      assert.ok(await env.statek.store.claimJob(orphan.id, dead, 3_600_000));
      // Its safety tick ends the dead worker's lease (long before the hour is up), while its slot is still busy.
      await eventually(async () => activities.length > 0, 10_000);
      assert.deepEqual(activities, [dead]);
      assert.equal(worker.stats.running, 1);
      release();
      await eventually(async () => (await env.statek.getJob(orphan.id))!.status === "DONE", 10_000);
      assert.equal((await env.statek.getJob(busy.id))!.exitStatus, "held");
    } finally {
      release();
      await worker.stop();
      await env.close();
    }
  });

  it("wakes a job waiting for a message as soon as it is pushed", async () => {
    const agent = warmupAgent("listener");
    const env = await open_({ agents: [agent] });
    const worker = env.statek.worker();
    try {
      await worker.start();
      const { id } = await env.statek.submitJob(agent, { warmup: "const m = await waitForMessage()\nexit(m)" });
      await eventually(async () => (await env.statek.store.getJob(id))!.status === "SUSPENDED");
      await env.statek.pushMessage(id, "hello");
      await eventually(async () => (await env.statek.store.getJob(id))!.status === "DONE", 5_000);
      assert.equal((await env.statek.getJob(id))!.exitStatus, "hello");
    } finally {
      await worker.stop();
      await env.close();
    }
  });

  it("never runs more than maxConcurrency steps at once", async () => {
    let inFlight = 0;
    let most = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const agent = warmupAgent("busy", [{
      name: "work", description: "Works until the test lets it go.", params: z.object({}),
      run: async () => {
        most = Math.max(most, ++inFlight);
        await gate;
        inFlight--;
      },
    }]);
    const env = await open_({ agents: [agent] });
    const worker = env.statek.worker({ maxConcurrency: 3 });
    try {
      for (let n = 0; n < 10; n++) await env.statek.submitJob(agent, { warmup: "await work()\nexit(1)" });
      await worker.start();
      await eventually(async () => inFlight === 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(worker.stats.running, 3);
      open();
      await eventually(allDone(env.statek, 10));
      assert.equal(most, 3);
    } finally {
      await worker.stop();
      await env.close();
    }
  });

  it("stops gracefully: running steps finish within the grace period; the rest are aborted and leave no live lease", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const agent = warmupAgent("stuck", [{
      name: "slow", description: "Waits for the test.", params: z.object({ n: z.number().describe("Which.") }),
      run: async ({ n }) => {
        started++;
        if (n === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        else await gate;
        return n;
      },
    }]);
    const env = await open_({ agents: [agent], leaseMs: 60_000 });
    const worker = env.statek.worker({ maxConcurrency: 3 });
    try {
      const ids = [];
      for (let n = 0; n < 3; n++) ids.push((await env.statek.submitJob(agent, { warmup: `const r = await slow(${n})\nexit(r)` })).id);
      await worker.start();
      await eventually(async () => started === 3);
      const stopping = Date.now();
      await worker.stop({ graceMs: 300 });
      assert.ok(Date.now() - stopping < 5_000, "stop does not wait for the stuck steps beyond the grace period");
      const rows = await Promise.all(ids.map((id) => env.statek.store.getJob(id)));
      const leases = await Promise.all(ids.map((id) => env.statek.store.getLease(id)));
      assert.deepEqual(rows.map((row) => row!.status), ["DONE", "READY", "READY"], "the quick job finished; the stuck ones committed nothing");
      assert.deepEqual(leases.filter((lease) => lease !== null && lease.until > Date.now()), [], "no live lease is left");
      assert.deepEqual(rows.map((row) => row!.version), [1, 0, 0], "nothing half-written");
    } finally {
      release();
      await env.close();
    }
  });

  it("keeps a job that stays runnable under one lease from step to step, and releases it when stopped", async () => {
    // Each cell records the epoch of the job's lease: every claim bumps it, a kept lease does not.
    let statekRef: Statek | undefined;
    const leaseEpoch = tool({
      name: "leaseEpoch", description: "The epoch of this job's lease.", params: z.object({}),
      run: async (_args, ctx) => {
        return (await statekRef!.store.getLease(ctx.job.id))!.epoch;
      },
    });
    const cell = "```ts\nepochs.push(await leaseEpoch())\nif (epochs.length === 3) exit(epochs)\n```";
    const quick = new Agent({ role: "quick", tools: [leaseEpoch], model: scriptedModel([cell, cell, cell, cell]), warmup: "const epochs = []" });
    const endless = new Agent({ role: "endless", model: scriptedModel(Array.from({ length: 10_000 }, () => "```ts\nn += 1\n```")), warmup: "let n = 0" });
    const env = await open_({ agents: [quick, endless] });
    statekRef = env.statek;
    const worker = env.statek.worker({ agents: [quick] });
    try {
      const { id } = await env.statek.submitJob(quick);
      await worker.start();
      await eventually(async () => (await env.statek.store.getJob(id))!.status === "DONE");
      assert.deepEqual((await env.statek.getJob(id))!.exitStatus, [1, 1, 1], "one claim for the job's four steps");
      // The worker counts the last step once its commit's fsync is done, just after a reader can see it.
      await eventually(async () => worker.stats.running === 0, 5_000);
      assert.equal(worker.stats.steps, 4);
    } finally {
      await worker.stop();
    }
    // A job that never stops being runnable is stepped until the worker stops, which releases its lease.
    const busy = env.statek.worker({ agents: [endless] });
    try {
      const { id } = await env.statek.submitJob(endless);
      await busy.start();
      await eventually(async () => busy.stats.steps >= 5);
      await busy.stop();
      assert.equal(await env.statek.store.getLease(id), null, "the kept lease is released at stop");
      const row = (await env.statek.store.getJob(id))!;
      assert.equal(row.status, "STARTED");
      assert.equal(row.version, busy.stats.steps, "every step committed once");
    } finally {
      await busy.stop();
      await env.close();
    }
  });
});

describe("the outbox under a worker", () => {
  it("loses its events older than eventRetentionMs while the worker runs", async () => {
    const agent = warmupAgent("quick");
    const env = await open_({ agents: [agent] });
    try {
      for (let n = 0; n < 3; n++) await env.statek.submitJob(agent, { warmup: "exit(1)" });
      const old = new Set((await env.statek.store.readEvents()).map((event) => event.id));
      assert.ok(old.size >= 3, "submitting wrote events");
      const worker = env.statek.worker({ maxConcurrency: 2, eventRetentionMs: 300 });
      await worker.start();
      await eventually(allDone(env.statek, 3));
      // The submits' events age past 300 ms and a prune (every 30 ms here) deletes them; the history stays.
      await eventually(async () => !(await env.statek.store.readEvents({ limit: 100_000 })).some((event) => old.has(event.id)), 10_000);
      await worker.stop({ graceMs: 1_000 });
      const view = await env.statek.getJob((await env.statek.listJobs({ limit: 1 }))[0]!.id);
      assert.ok(view!.history.length > 0, "job histories are not touched");
    } finally {
      await env.close();
    }
  });

  it("is never pruned with eventRetentionMs 0; a bad retention is refused", async () => {
    const agent = warmupAgent("quick");
    const env = await open_({ agents: [agent] });
    try {
      assert.throws(() => env.statek.worker({ eventRetentionMs: -1 }), /worker: eventRetentionMs must be an integer of at least 0, got -1/);
      await env.statek.submitJob(agent, { warmup: "exit(1)" });
      const worker = env.statek.worker({ eventRetentionMs: 0 });
      await worker.start();
      await eventually(allDone(env.statek, 1));
      await worker.stop({ graceMs: 1_000 });
      const events = await env.statek.store.readEvents();
      assert.equal(events[0]!.kind, "job-submitted", "the oldest event is still there");
    } finally {
      await env.close();
    }
  });
});
