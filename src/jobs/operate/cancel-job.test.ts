import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { JobCancelledError } from "../../errors/job-cancelled-error.ts";
import { InvalidJobStatusError } from "../../errors/invalid-job-status-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import { scriptedModel } from "../../models/scripted-model.ts";
import type { JobRow, JobStatus } from "../../store/store.ts";
import { errorHandler } from "../../tools/error-handler.ts";
import { tool } from "../../tools/tool.ts";
import { Agent } from "../../agents/agent.ts";
import { Statek } from "../statek.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

function tempStore() {
  const dir = mkdtempSync(join(tmpdir(), "statek-cancel-"));
  return { path: join(dir, "statek.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A job row for the store, as a child job would have it. */
function jobRow(role: string, status: JobStatus, parentId: string | null): JobRow {
  const now = Date.now();
  return {
    id: randomUUID(), role, status, params: {}, metadata: {}, parentId, createdAt: now, updatedAt: now, version: 0, turns: 0,
    pendingSeq: null, historyLength: 0, exitStatus: null, error: null, usage: {}, state: {}, wakeAt: null, cell: 0,
  };
}

describe("statek.cancelJob", () => {
  it("cancels a suspended job: CANCELLED with the reason, its waits cancelled, its error handlers run with a JobCancelledError", async () => {
    const runs: Array<{ context: unknown; error: unknown }> = [];
    const release = errorHandler({ name: "_releaseHold", run: (context, error) => void runs.push({ context, error }) });
    const hold = tool({
      name: "hold", description: "Hold a seat.", params: z.object({ seat: z.string().describe("The seat.") }),
      errorHandler: release, run: ({ seat }) => `held ${seat}`,
    });
    const agent = new Agent({ role: "sleeper", tools: [hold], model: scriptedModel([ts("await hold('12A')\nawait sleep(3_600_000)\nexit('woke')")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const events = statek.events({ jobId: id });
      const view = await statek.cancelJob(id, "the customer withdrew the request");
      assert.equal(view.status, "CANCELLED");
      assert.equal(view.error, "the customer withdrew the request");
      const status = view.history.findLast((record) => record.kind === "status");
      assert.deepEqual(status?.data, { status: "CANCELLED", reason: "the customer withdrew the request" });
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.context, "held 12A");
      assert.ok(runs[0]!.error instanceof JobCancelledError);
      assert.equal((runs[0]!.error as Error).message, `job ${id} was cancelled: the customer withdrew the request`);
      assert.ok(view.history.some((record) => record.kind === "error-handler" && record.data.name === "_releaseHold" && record.data.outcome === "done"));
      const futures = await statek.store.listFutures(id);
      assert.ok(futures.length > 0 && futures.every((future) => future.state === "cancelled"), "the timer is cancelled");
      const row = await statek.store.getJob(id);
      assert.equal(row?.wakeAt, null);
      assert.equal(await statek.store.getLease(id), null, "the cancellation's lease is released");
      assert.equal((await statek.step(id)).status, "CANCELLED", "stepping a cancelled job does nothing");
      const kinds: string[] = [];
      for await (const event of events) {
        kinds.push(event.kind === "status-change" ? `${event.previousStatus}->${event.status}` : event.kind);
        if (event.kind === "step-end" && event.status === "CANCELLED") break;
      }
      assert.ok(kinds.includes("SUSPENDED->CANCELLED"), kinds.join(", "));
    } finally {
      await statek.close();
    }
  });

  it("refuses a job that has finished, naming its status, and checks its arguments", async () => {
    const agent = new Agent({ role: "quick", model: scriptedModel([ts("exit(1)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.runJob(id);
      await assert.rejects(statek.cancelJob(id, "too late"), (error: unknown) => {
        assert.ok(error instanceof InvalidJobStatusError);
        assert.equal(error.message, `cancelJob: job ${id} is DONE; only a job that has not finished can be cancelled`);
        assert.equal(error.status, "DONE");
        return true;
      });
      await assert.rejects(statek.cancelJob("nope", "x"), NoSuchJobError);
      const other = await statek.submitJob(new Agent({ role: "idle", model: scriptedModel([]) }));
      await assert.rejects(statek.cancelJob(other.id, "" as string), /cancelJob: the reason must be a non-empty string/);
      const view = await statek.cancelJob(other.id);
      assert.equal(view.error, "cancelled by the application");
      await assert.rejects(statek.cancelJob(other.id), /is CANCELLED; only a job that has not finished/);
    } finally {
      await statek.close();
    }
  });

  it("cancels the job's descendants that have not finished, with a reason naming the parent", async () => {
    const statek = await Statek.open({ store: ":memory:" });
    try {
      const parent = jobRow("p", "STARTED", null);
      const child = jobRow("c", "SUSPENDED", parent.id);
      const finished = jobRow("c", "DONE", parent.id);
      const grandchild = jobRow("g", "READY", child.id);
      const underFinished = jobRow("g", "STARTED", finished.id);
      const stranger = jobRow("s", "READY", null);
      for (const row of [parent, child, finished, grandchild, underFinished, stranger]) await statek.store.insertJob(row, [], []);
      await statek.cancelJob(parent.id, "shutting down");
      const status = async (row: JobRow) => (await statek.store.getJob(row.id))!;
      assert.equal((await status(parent)).status, "CANCELLED");
      assert.equal((await status(child)).status, "CANCELLED");
      assert.equal((await status(child)).error, `its parent job ${parent.id} was cancelled: shutting down`);
      assert.equal((await status(grandchild)).status, "CANCELLED");
      assert.equal((await status(grandchild)).error, `its parent job ${child.id} was cancelled: its parent job ${parent.id} was cancelled: shutting down`);
      assert.equal((await status(finished)).status, "DONE", "a finished child keeps its ending");
      assert.equal((await status(underFinished)).status, "CANCELLED", "the children of a finished child are still cancelled");
      assert.equal((await status(stranger)).status, "READY");
    } finally {
      await statek.close();
    }
  });

  it("a step running the job in another process loses its lease: it writes nothing more and reports CANCELLED", async () => {
    const store = tempStore();
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const slow = tool({
      name: "slow", description: "Takes a while.", params: z.object({}),
      run: async () => {
        entered();
        await finished;
        return "finished";
      },
    });
    const agent = new Agent({ role: "worker", tools: [slow], model: scriptedModel([ts("print('before')\nconst r = await slow()\nprint(r)\nexit(r)")]) });
    const worker = await Statek.open({ store: store.path, agents: [agent] });
    const operator = await Statek.open({ store: store.path });
    try {
      const { id } = await worker.submitJob(agent);
      const running = worker.runJob(id);
      await inTool;
      const cancelled = await operator.cancelJob(id, "stop it");
      assert.equal(cancelled.status, "CANCELLED");
      const length = cancelled.history.length;
      finish();
      const view = await running;
      assert.equal(view.status, "CANCELLED", "runJob reports where the job stands");
      assert.equal(view.history.length, length, "the preempted step wrote nothing");
      assert.deepEqual(view.console, [], "its console output was never committed");
      assert.equal(view.error, "stop it");
    } finally {
      await worker.close();
      await operator.close();
      store.remove();
    }
  });

  it("a step of the same process stops at once, even inside a tool call that never returns", async () => {
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => (entered = resolve));
    const stuck = tool({
      name: "stuck", description: "Never returns.", params: z.object({}),
      run: () => {
        entered();
        return new Promise<never>(() => {});
      },
    });
    const agent = new Agent({ role: "stuck", tools: [stuck], model: scriptedModel([ts("await stuck()\nexit(1)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const running = statek.runJob(id);
      await inTool;
      await statek.cancelJob(id, "it hangs");
      const view = await running;
      assert.equal(view.status, "CANCELLED");
      assert.equal(view.error, "it hangs");
    } finally {
      await statek.close();
    }
  });
});
