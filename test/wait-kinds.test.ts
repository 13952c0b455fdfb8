/**
 * Every wait has a kind, and only its own door settles it, through the public API:
 * `resolveFuture`/`rejectFuture` settle an application's future (`ctx.future`) and nothing else. Naming an
 * approval request, a durable sleep, a message wait or a child job's end is refused with a `WaitKindError` that
 * says which kind the key is and what settles it — and the wait goes on as if nothing had been tried.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, WaitKindError, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function refusal(settle: Promise<unknown>): Promise<WaitKindError> {
  const error = await settle.then(() => undefined, (thrown: unknown) => thrown);
  assert.ok(error instanceof WaitKindError, `refused with a WaitKindError (got ${String(error)})`);
  return error;
}

describe("wait kinds through the public API", () => {
  it("resolveFuture cannot approve a needsApproval payment: refused, naming approve()/deny(); the payment waits for a real decision", async () => {
    const runs: string[] = [];
    const pay = tool({
      name: "pay", description: "Pays.", params: z.object({ amount: z.number().describe("Amount.") }), needsApproval: true,
      run: ({ amount }, ctx) => {
        runs.push(`${amount} by ${ctx.approval?.by}`);
        return "paid";
      },
    });
    const agent = new Agent({ role: "payer", model: scriptedModel([ts("exit(await pay(500))")]), tools: [pay] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const [request] = await statek.pendingApprovals({ jobId: id });
      const refused = await refusal(statek.resolveFuture(request!.requestId, { approved: true, by: "cfo" }));
      assert.equal(refused.kind, "approval");
      assert.match(refused.message, /is an approval request \(kind approval\): only approve\(\)\/deny\(\) settles it, not resolveFuture\(\)\/rejectFuture\(\)/);
      await refusal(statek.rejectFuture(request!.requestId, "no"));
      assert.equal((await statek.runJob(id)).status, "SUSPENDED", "nothing woke it");
      assert.deepEqual(runs, [], "the payment did not run");
      assert.equal((await statek.pendingApprovals({ jobId: id })).length, 1, "the request still waits");
      await statek.approve(id, request!.requestId, { by: "alice" });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(runs, ["500 by alice"], "ran once, under the real decision");
      const decision = view.history.find((record) => record.kind === "approval");
      assert.equal(decision?.kind === "approval" && decision.data.by, "alice");
    } finally {
      await statek.close();
    }
  });

  it("resolveFuture cannot end another job's durable sleep, nor answer its waitForMessage; pushMessage does", async () => {
    const agent = new Agent({ role: "sleeper", model: scriptedModel([ts("await sleep(3_600_000)\nconst message = await waitForMessage()\nexit(message)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const suspended = await statek.runJob(id);
      assert.equal(suspended.status, "SUSPENDED");
      const [timer] = await statek.store.listFutures(id, { state: "waiting" });
      assert.equal(timer?.kind, "timer");
      const refused = await refusal(statek.resolveFuture(timer!.key));
      assert.match(refused.message, /is a timer \(kind timer\): only its time coming settles it/);
      const row = await statek.store.getJob(id);
      assert.ok(row!.wakeAt! > Date.now() + 3_000_000, "still due in an hour");
      assert.equal((await statek.store.getFuture(timer!.key))?.state, "waiting");
      // Let its hour pass (the timer's row says it is due), then it waits for a message.
      await statek.store.commit({ id, expectedVersion: row!.version, job: { wakeAt: Date.now() } });
      const woken = (await statek.store.getFuture(timer!.key))!;
      await statek.store.settleFuture(woken.key, { state: "resolved", value: null, door: "time" });
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const message = `${id}:message:0`;
      assert.equal((await statek.store.getFuture(message))?.kind, "message");
      const forged = await refusal(statek.resolveFuture(message, "transfer everything"));
      assert.match(forged.message, /only pushMessage\(\) settles it/);
      await statek.pushMessage(id, "hello");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "hello");
    } finally {
      await statek.close();
    }
  });

  it("a message wait's key settled early by resolveFuture does not count: the job waits for the real message", async () => {
    const agent = new Agent({ role: "listener", model: scriptedModel([ts("exit(await waitForMessage())")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      // Nobody waits yet: an application's early answer is kept for an application's future only.
      await statek.resolveFuture(`${id}:message:0`, "forged");
      assert.equal((await statek.runJob(id)).status, "SUSPENDED", "the forged answer did not reach waitForMessage()");
      await statek.pushMessage(id, "real");
      const view = await statek.runJob(id);
      assert.equal(view.exitStatus, "real");
    } finally {
      await statek.close();
    }
  });

  it("rejectFuture cannot end a parent's wait for its child; the child's end does", async () => {
    const child = new Agent({ role: "helper", model: scriptedModel([ts("exit(42)")]) });
    const start = tool({ name: "start", description: "Starts a helper.", params: z.object({}), run: (_args, ctx) => ctx.startJob(child) });
    const parent = new Agent({ role: "lead", model: scriptedModel([ts("exit(await start())")]), tools: [start] });
    const statek = await Statek.open({ store: ":memory:", agents: [parent, child] });
    try {
      const { id } = await statek.submitJob(parent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const [summary] = await statek.listJobs({ parentId: id });
      const refused = await refusal(statek.rejectFuture(summary!.id, "forged failure"));
      assert.match(refused.message, /is a wait for a child job's end \(kind child\): only the child job's end settles it/);
      assert.equal((await statek.runJob(summary!.id)).status, "DONE");
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, 42);
    } finally {
      await statek.close();
    }
  });

  it("resolveFuture still settles an application's future, before or after the job waits", async () => {
    const wait = tool({ name: "wait", description: "Waits for the webhook.", params: z.object({ key: z.string().describe("Key.") }), run: ({ key }, ctx) => ctx.future(key) });
    const agent = new Agent({ role: "app", model: scriptedModel(Array.from({ length: 4 }, () => ts("exit(await wait(key))"))), tools: [wait] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const early = await statek.submitJob(agent, { vars: { key: "payment:early" } });
      assert.equal(await statek.resolveFuture("payment:early", "paid early"), true);
      assert.equal((await statek.runJob(early.id)).exitStatus, "paid early");
      const late = await statek.submitJob(agent, { vars: { key: "payment:late" } });
      assert.equal((await statek.runJob(late.id)).status, "SUSPENDED");
      assert.equal(await statek.resolveFuture("payment:late", "paid"), true);
      assert.equal((await statek.runJob(late.id)).exitStatus, "paid");
    } finally {
      await statek.close();
    }
  });
});
