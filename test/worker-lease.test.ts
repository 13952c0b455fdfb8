/**
 * Leases renewed at the rate they were taken: a worker claims with its own `leaseMs` and its steps renew at a
 * quarter of that same length, whatever `Statek.open`'s is — so a tool that outlasts the lease does not lose its
 * job to the worker's own next claim. A lease that goes unrenewed for longer than it lasts (the event loop
 * stalled) is reported, never a silent takeover.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import type { WorkerActivity } from "../src/jobs/statek-worker.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a worker's leases", () => {
  it("one worker, leaseMs 1 s, a 3 s tool: no in-doubt, one call, the tool's result in the cell", { timeout: 60_000 }, async () => {
    let calls = 0;
    const slow = tool({
      name: "slow", description: "Takes three seconds.", params: z.object({}),
      run: async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return "finished";
      },
    });
    const agent = new Agent({ role: "patient", model: scriptedModel([ts("exit(await slow())"), ts("exit('asked again')")]), tools: [slow] });
    // Statek.open's own lease is the default 30 s; the worker claims for 1 s.
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const activity: WorkerActivity[] = [];
    const worker = statek.worker({ leaseMs: 1_000, onActivity: (event) => void activity.push(event) });
    try {
      const { id } = await statek.submitJob(agent);
      await worker.start();
      await until(async () => (await statek.getJob(id))?.status === "DONE", "the job to end");
      const view = (await statek.getJob(id))!;
      assert.equal(view.exitStatus, "finished", "the tool's result reached the cell");
      assert.equal(calls, 1, "one call");
      assert.deepEqual(view.console.filter((line) => line.includes("InDoubtError")), [], "nothing in doubt");
      assert.deepEqual(activity.filter((event) => event.kind === "step-error" || event.kind === "lease-late"), []);
    } finally {
      await worker.stop();
      await statek.close();
    }
  });

  it("a lease left unrenewed for longer than it lasts (the event loop stalled) is reported", { timeout: 60_000 }, async () => {
    const stall = tool({
      name: "stall", description: "Blocks the event loop.", params: z.object({ ms: z.number().describe("How long.") }),
      run: ({ ms }) => {
        const end = Date.now() + ms;
        while (Date.now() < end) {
          // Nothing else runs meanwhile, the lease's renewal included.
        }
        return "stalled";
      },
    });
    const agent = new Agent({ role: "staller", model: scriptedModel([ts("exit(stall(1000))")]), tools: [stall] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const activity: WorkerActivity[] = [];
    const worker = statek.worker({ leaseMs: 400, onActivity: (event) => void activity.push(event) });
    try {
      const { id } = await statek.submitJob(agent);
      await worker.start();
      await until(async () => activity.some((event) => event.kind === "lease-late"), "the late lease to be reported");
      const late = activity.find((event) => event.kind === "lease-late");
      assert.ok(late?.kind === "lease-late");
      assert.equal(late.jobId, id);
      assert.equal(late.leaseMs, 400);
      assert.ok(late.unrenewedMs > 400, `unrenewed for ${late.unrenewedMs} ms`);
      await until(async () => (await statek.getJob(id))?.status === "DONE", "the job to end");
    } finally {
      await worker.stop();
      await statek.close();
    }
  });
});
