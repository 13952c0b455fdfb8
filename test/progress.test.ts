/**
 * Progress is never lost: a wait settled before, during or after the step that opened it always
 * wakes its job, and the job's history says once how each approval and child ended — whether the outcome was
 * known before a retried step opened the wait again, or came later. The "other process" here is a second
 * `Statek` on the same SQLite file: it shares nothing in memory with the first, so only the store can tell.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, StoreError, scriptedModel, tool, type JobView } from "../src/index.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "statek-progress-"));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const records = (view: JobView, kind: string) => view.history.filter((record) => record.kind === kind);

describe("progress is never lost", () => {
  it("an approval decided by another process while the step that asked for it still runs wakes the job", async () => {
    await withDir(async (dir) => {
      const file = join(dir, "statek.db");
      // The approver: another process, as an approval policy service would be.
      const approver = await Statek.open({ store: file });
      const pay = tool({ name: "pay", description: "Pays.", params: z.object({ amount: z.number().describe("Amount.") }), needsApproval: true, run: ({ amount }) => `paid ${amount}` });
      // Runs while the request is open and the cell cannot suspend yet: the decision comes before the suspension.
      const busy = tool({
        name: "busy", description: "Works a while.", params: z.object({}),
        run: async (_args, ctx) => {
          const [request] = await approver.pendingApprovals({ jobId: ctx.job.id });
          await approver.approve(ctx.job.id, request!.requestId, { by: "policy" });
          return "worked";
        },
      });
      const agent = new Agent({ role: "payer", model: scriptedModel([ts("const payment = pay(10)\nawait busy()\nexit(await payment)")]), tools: [pay, busy] });
      const statek = await Statek.open({ store: file, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        const first = await statek.runJob(id);
        if (first.status === "SUSPENDED") {
          const row = await statek.store.getJob(id);
          assert.notEqual(row?.wakeAt, null, "the suspension saw the decision: the job is runnable, not waiting forever");
          assert.ok(row!.wakeAt! <= Date.now());
        }
        const view = first.status === "SUSPENDED" ? await statek.runJob(id) : first;
        assert.equal(view.status, "DONE");
        assert.equal(view.exitStatus, "paid 10");
        assert.equal(records(view, "approval").length, 1, "the decision is recorded once");
      } finally {
        await statek.close();
        await approver.close();
      }
    });
  });

  it("a retried step whose approval was decided meanwhile still records the decision, once", async () => {
    await withDir(async (dir) => {
      const file = join(dir, "statek.db");
      const abort = new AbortController();
      const pay = tool({ name: "pay", description: "Pays.", params: z.object({ amount: z.number().describe("Amount.") }), needsApproval: true, run: ({ amount }) => `paid ${amount}` });
      // The step that opened the request is given up before it commits (its worker is stopping, say).
      const stop = tool({ name: "stop", description: "Stops the step.", params: z.object({}), idempotent: true, run: () => void abort.abort(new Error("stopping")) });
      const agent = new Agent({ role: "payer", model: scriptedModel([ts("const payment = pay(20)\nawait stop()\nexit(await payment)")]), tools: [pay, stop] });
      const statek = await Statek.open({ store: file, agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        await statek.step(id); // the model's reply, committed
        await assert.rejects(statek.step(id, { signal: abort.signal }));
        const [request] = await statek.pendingApprovals({ jobId: id });
        assert.ok(request, "the request was made before the step was given up");
        await statek.approve(id, request.requestId, { by: "alice" });
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE");
        assert.equal(view.exitStatus, "paid 20");
        const decisions = records(view, "approval");
        assert.equal(decisions.length, 1, "the decision known before the retry is recorded, once");
        assert.equal(decisions[0]?.kind === "approval" && decisions[0].data.by, "alice");
      } finally {
        await statek.close();
      }
    });
  });

  it("a retried step whose child ended meanwhile still records the child's end, once", async () => {
    await withDir(async (dir) => {
      const file = join(dir, "statek.db");
      const abort = new AbortController();
      const helper = new Agent({ role: "helper", model: scriptedModel(Array.from({ length: 3 }, () => ts("exit(7)"))) });
      const start = tool({ name: "start", description: "Starts a helper.", params: z.object({}), run: (_args, ctx) => ctx.startJob(helper) });
      const stop = tool({ name: "stop", description: "Stops the step.", params: z.object({}), idempotent: true, run: () => void abort.abort(new Error("stopping")) });
      const agent = new Agent({ role: "lead", model: scriptedModel([ts("const child = start()\nawait stop()\nexit(await child)")]), tools: [start, stop] });
      const statek = await Statek.open({ store: file, agents: [agent, helper] });
      try {
        const { id } = await statek.submitJob(agent);
        await statek.step(id);
        await assert.rejects(statek.step(id, { signal: abort.signal }));
        const [child] = await statek.listJobs({ parentId: id });
        assert.equal((await statek.runJob(child!.id)).status, "DONE");
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE");
        assert.equal(view.exitStatus, 7);
        assert.equal(records(view, "child-ended").length, 1, "the child's end is recorded once");
      } finally {
        await statek.close();
      }
    });
  });

  it("a child's end wakes its suspended parent in the same commit, even when no separate settlement could be made", async () => {
    await withDir(async (dir) => {
      const inner = await openStore(join(dir, "statek.db"));
      // A store whose separate settlements of child waits fail (the database went away right after the commit).
      const store: Store = new Proxy(inner, {
        get(target, property, receiver) {
          if (property === "settleFuture") {
            return (key: string, settlement: { door: string }) => settlement.door === "child-end"
              ? Promise.reject(new StoreError({ code: "ECONNRESET", message: "connection lost", isRetryable: false }))
              : target.settleFuture(key, settlement as Parameters<Store["settleFuture"]>[1]);
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const helper = new Agent({ role: "helper", model: scriptedModel([ts("exit('found')")]) });
      const start = tool({ name: "start", description: "Starts a helper.", params: z.object({}), run: (_args, ctx) => ctx.startJob(helper) });
      const agent = new Agent({ role: "lead", model: scriptedModel([ts("exit(await start())")]), tools: [start] });
      const statek = await Statek.open({ store, agents: [agent, helper] });
      try {
        const { id } = await statek.submitJob(agent);
        assert.equal((await statek.runJob(id)).status, "SUSPENDED");
        assert.equal((await store.getJob(id))?.wakeAt, null, "it waits for its child");
        const [child] = await statek.listJobs({ parentId: id });
        assert.equal((await statek.runJob(child!.id)).status, "DONE");
        const parent = await store.getJob(id);
        assert.notEqual(parent?.wakeAt, null, "the parent is runnable: a worker claims it");
        assert.deepEqual((await store.claimRunnable("a-worker", 10_000, 10)).map((lease) => lease.jobId), [id]);
      } finally {
        await statek.close();
        await inner.close();
      }
    });
  });
});
