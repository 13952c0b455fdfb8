/**
 * Child jobs: `ctx.startJob` in a tool starts a child (its row names its parent, `listJobs({
 * parentId })` finds it); agent code gets a handle it can print (its state) and await (the exit value, or
 * `ChildJobFailed`), alone or in `Promise.all`; a parent suspended on a child wakes when it ends; the parent's
 * history says how each child ended, and the model reads it; children inherit the parent's error handlers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, errorHandler, scriptedModel, tool, type ScriptedTurn } from "../../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A child agent whose jobs run `turns` (its model's script repeats them for a few jobs: jobs share their agent's model). */
const childAgent = (role: string, ...turns: ScriptedTurn[]) =>
  new Agent({ role, model: scriptedModel(Array.from({ length: 4 }, () => turns).flat()), harness: { maxConsecutiveExceptions: 1 } });

/** A tool that starts a child of `agent` with `topic` in its variables. */
const starter = (name: string, agent: Agent | string, async = false) =>
  tool({
    name,
    description: "Starts a child job.",
    params: z.object({ topic: z.string().describe("What the child works on.") }),
    run: async
      ? async ({ topic }, ctx) => ctx.startJob(agent, { vars: { topic }, params: { depth: 1 }, message: `Work on ${topic}.` })
      : ({ topic }, ctx) => ctx.startJob(agent, { vars: { topic }, params: { depth: 1 }, message: `Work on ${topic}.` }),
  });

/** Runs the children of `parentId` that can run (a stand-in for a worker: the next issue's). */
async function runChildren(statek: Statek, parentId: string): Promise<void> {
  for (const job of await statek.listJobs({ parentId })) {
    if (job.status === "READY" || job.status === "STARTED" || job.status === "WARMING_UP") await statek.runJob(job.id);
  }
}

describe("child jobs", () => {
  it("a tool starts a child; agent code prints its handle and awaits its exit value; the child names its parent", async () => {
    const child = childAgent("researcher", ts("exit(topic.toUpperCase())"));
    const cell = "const handle = research('cats')\nprint(handle)\nprint(handle.state)\nconst found = await handle\nprint(found)\nprint(handle.state)\nexit(found)";
    const model = scriptedModel([ts(cell)]);
    const parent = new Agent({ role: "lead", model, tools: [starter("research", child)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      let view = await statek.runJob(id);
      assert.equal(view.status, "SUSPENDED", "waiting for the child");
      const children = await statek.listJobs({ parentId: id });
      assert.equal(children.length, 1);
      const [summary] = children;
      assert.equal(summary!.parentId, id);
      assert.equal(summary!.role, "researcher");
      assert.equal(summary!.status, "READY");
      assert.deepEqual(view.console, [`{id:"${summary!.id}",role:"researcher"}`, "WAITING"]);
      const childView = await statek.runJob(summary!.id);
      assert.equal(childView.status, "DONE");
      assert.equal(childView.parentId, id);
      assert.equal(childView.variables.topic, "cats");
      assert.deepEqual(childView.params, { depth: 1 });
      assert.ok(childView.history.some((record) => record.kind === "user-message" && record.data.text === "Work on cats."));
      view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "CATS");
      assert.deepEqual(view.console.slice(2), ["CATS", "COMPLETED"]);
      const ended = view.history.find((record) => record.kind === "child-ended");
      assert.ok(ended?.kind === "child-ended");
      assert.deepEqual(ended.data, { childId: summary!.id, role: "researcher", status: "DONE", result: '"CATS"' });
      assert.equal((await statek.listJobs({ parentId: id })).length, 1, "one child, however often the cell was replayed");
    } finally {
      await statek.close();
    }
  });

  it("a child that fails throws ChildJobFailed in the awaiting code, which can catch it", async () => {
    const child = childAgent("flaky", ts("throw new Error('no luck')"));
    const cell = "try { await research('x') } catch (error) { print(error.name + ': ' + error.message) }\nexit()";
    const parent = new Agent({ role: "lead", model: scriptedModel([ts(cell)]), tools: [starter("research", child, true)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      await statek.runJob(id);
      await runChildren(statek, id);
      const [failed] = await statek.listJobs({ parentId: id });
      assert.equal(failed!.status, "FAILED");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.console.length, 1);
      assert.match(view.console[0]!, new RegExp(`^ChildJobFailed: child job ${failed!.id} \\(flaky\\) failed: `));
      const ended = view.history.find((record) => record.kind === "child-ended");
      assert.ok(ended?.kind === "child-ended" && ended.data.status === "FAILED" && ended.data.reason === failed!.error);
    } finally {
      await statek.close();
    }
  });

  it("children awaited together with Promise.all; a role names a registered agent", async () => {
    const child = childAgent("summarizer", ts("exit(topic.length)"));
    const cell = "const lengths = await Promise.all([summarize('owl'), summarize('ocelot')])\nexit(lengths)";
    const parent = new Agent({ role: "lead", model: scriptedModel([ts(cell)]), tools: [starter("summarize", "summarizer", true)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      assert.equal((await statek.listJobs({ parentId: id })).length, 2);
      await runChildren(statek, id);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.exitStatus, [3, 6]);
      assert.equal(view.history.filter((record) => record.kind === "child-ended").length, 2);
    } finally {
      await statek.close();
    }
  });

  it("a suspended parent wakes when its child ends, and the model reads how the child ended", async () => {
    const child = childAgent("helper", ts("exit('found it')"));
    const model = scriptedModel([ts("research('a')\nprint('started')"), ts("await sleep(60_000)"), ts("exit()")]);
    const parent = new Agent({ role: "lead", model, tools: [starter("research", child)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      // The first cell starts the child without awaiting it; the second sleeps (suspended, waiting a minute).
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const before = (await statek.store.getJob(id))!;
      assert.ok(before.wakeAt! > Date.now() + 30_000, "not due before the timer");
      await runChildren(statek, id);
      const woken = (await statek.store.getJob(id))!;
      assert.ok(woken.wakeAt! <= Date.now(), "the child's end made the parent runnable at once");
      await statek.step(id);
      const view = (await statek.getJob(id))!;
      const ended = view.history.find((record) => record.kind === "child-ended");
      assert.ok(ended?.kind === "child-ended" && ended.data.result === '"found it"', "recorded while the parent still waits for its timer");
      assert.equal(view.status, "SUSPENDED", "still sleeping");
    } finally {
      await statek.close();
    }
  });

  it("a child cancelled behind its parent's back reads as ChildJobFailed when the parent looks", async () => {
    const child = childAgent("slow", ts("await sleep(3_600_000)"));
    const cell = "try { await research('x') } catch (error) { print(error.name + ': ' + error.message) }\nexit()";
    const parent = new Agent({ role: "lead", model: scriptedModel([ts(cell)]), tools: [starter("research", child)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      await statek.runJob(id);
      const [summary] = await statek.listJobs({ parentId: id });
      const row = (await statek.store.getJob(summary!.id))!;
      // As statek.cancelJob would leave it (another part of the issue), without telling the parent.
      await statek.store.commit({ id: row.id, expectedVersion: row.version, job: { status: "CANCELLED", error: "stopped by an operator" }, cancelFutures: true });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, [`ChildJobFailed: child job ${row.id} (slow) was cancelled: stopped by an operator`]);
    } finally {
      await statek.close();
    }
  });

  it("children inherit their parent's error handlers", async () => {
    const ran: string[] = [];
    const release = errorHandler({ name: "_release", run: (context: string) => void ran.push(context) });
    const claim = tool({ name: "claim", description: "Claims a room.", params: z.object({ room: z.string().describe("The room.") }), errorHandler: release, run: ({ room }) => `room ${room}` });
    const child = childAgent("booker", ts("throw new Error('double booked')"));
    const parent = new Agent({ role: "lead", model: scriptedModel([ts("await claim('A')"), ts("await research('book it')")]), tools: [claim, starter("research", child)] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      await statek.runJob(id);
      await runChildren(statek, id);
      const [failed] = await statek.listJobs({ parentId: id });
      assert.equal(failed!.status, "FAILED");
      assert.deepEqual(ran, ["room A"], "the parent's handler ran for the failed child");
      const view = (await statek.getJob(failed!.id))!;
      assert.ok(view.history.some((record) => record.kind === "error-handler" && record.data.name === "_release"));
    } finally {
      await statek.close();
    }
  });

  it("ctx.startJob names its mistakes", async () => {
    const bad = tool({ name: "bad", description: "Starts badly.", params: z.object({ how: z.string().describe("How.") }), run: ({ how }, ctx) => ctx.startJob(how === "role" ? "nobody" : 42 as unknown as string) });
    const parent = new Agent({ role: "lead", model: scriptedModel([ts("for (const how of ['role', 'type']) { try { bad(how) } catch (error) { print(error.name + ': ' + error.message) } }\nexit()")]), tools: [bad] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent] });
    try {
      const view = await statek.runJob((await statek.submitJob(parent)).id);
      assert.match(view.console[0]!, /^NoSuchAgentError: .*nobody/);
      assert.equal(view.console[1], "TypeError: ctx.startJob: expected an Agent or the role of a registered agent, got a number");
    } finally {
      await statek.close();
    }
  });
});
