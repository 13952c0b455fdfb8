/**
 * Human approval: `needsApproval` tools and `requestApproval` suspend the job until
 * `statek.approve`/`deny`; an approved call runs once with the decision in `ctx.approval`; a denied one throws
 * `ApprovalDenied: <note>`; who decided and when is in the history, which the model reads; `pendingApprovals`
 * lists what waits; the operator's mistakes are clear errors.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import {
  Agent, ApprovalDecidedError, JobNotWaitingError, NoSuchApprovalError, NoSuchJobError, Statek, scriptedModel, tool,
  type ApprovalDecision, type ScriptedTurn,
} from "../../index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A payment tool that records every run (amount, note, who approved). */
function payments(needsApproval: boolean | ((args: { amount: number }) => boolean)) {
  const runs: Array<{ amount: number; approval: ApprovalDecision | undefined }> = [];
  const pay = tool({
    name: "pay",
    description: "Pays an amount.",
    params: z.object({ amount: z.number().describe("The amount.") }),
    needsApproval,
    run: ({ amount }, ctx) => {
      runs.push({ amount, approval: ctx.approval });
      return `paid ${amount}`;
    },
  });
  return { pay, runs };
}

async function open(turns: ScriptedTurn[], tools = [payments(true).pay], role = "payer") {
  const model = scriptedModel(turns);
  const agent = new Agent({ role, model, tools });
  const statek = await Statek.open({ store: ":memory:", agents: [agent] });
  const { id } = await statek.submitJob(agent);
  return { statek, agent, model, id };
}

const userTexts = (model: ReturnType<typeof scriptedModel>) =>
  model.requests.at(-1)!.messages.filter((message) => message.role === "user").flatMap((message) =>
    typeof message.content === "string" ? [message.content] : (message.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? ""));

describe("approvals", () => {
  it("a needsApproval call suspends the job until approved, then runs once with the decision; the history and the model say who decided", async () => {
    const { pay, runs } = payments(true);
    const { statek, model, id } = await open([ts("const receipt = await pay(120)\nprint(receipt)"), ts("exit(receipt)")], [pay]);
    try {
      let view = await statek.runJob(id);
      assert.equal(view.status, "SUSPENDED");
      assert.equal(runs.length, 0, "the call did not run");
      const [pending, ...others] = await statek.pendingApprovals();
      assert.deepEqual(others, []);
      assert.equal(pending!.jobId, id);
      assert.equal(pending!.tool, "pay");
      assert.deepEqual(pending!.args, { amount: 120 });
      assert.ok(pending!.requestedAt instanceof Date);
      assert.equal(pending!.summary, undefined);
      await statek.approve(id, pending!.requestId, { note: "within budget", by: "alice" });
      assert.deepEqual(await statek.pendingApprovals(), [], "decided: no longer pending");
      view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "paid 120");
      assert.deepEqual(view.console, ["paid 120"]);
      assert.equal(runs.length, 1, "approved: ran exactly once");
      assert.equal(runs[0]!.approval?.note, "within budget");
      assert.equal(runs[0]!.approval?.by, "alice");
      assert.equal(runs[0]!.approval?.requestId, pending!.requestId);
      const decision = view.history.find((record) => record.kind === "approval");
      assert.ok(decision && decision.kind === "approval");
      assert.deepEqual({ ...decision.data, decidedAt: 0 }, {
        requestId: pending!.requestId, tool: "pay", args: "{amount:120}", approved: true, note: "within budget", by: "alice", decidedAt: 0,
      });
      assert.ok(Math.abs(decision.data.decidedAt - Date.now()) < 60_000);
      assert.ok(userTexts(model).some((text) => text.includes("[approval] alice approved pay({amount:120}): within budget")), "the model read the decision");
    } finally {
      await statek.close();
    }
  });

  it("a denied call throws ApprovalDenied: <note>, which the code can catch; the tool never runs", async () => {
    const { pay, runs } = payments(true);
    const cell = "try { await pay(5000) } catch (error) { print(error.name + ': ' + error.message) }\nexit('handled')";
    const { statek, id } = await open([ts(cell)], [pay]);
    try {
      await statek.runJob(id);
      const [pending] = await statek.pendingApprovals({ jobId: id });
      await statek.deny(id, pending!.requestId, { note: "over the limit", by: "bob" });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["ApprovalDenied: over the limit"]);
      assert.deepEqual(runs, []);
      const decision = view.history.find((record) => record.kind === "approval");
      assert.ok(decision?.kind === "approval" && decision.data.approved === false && decision.data.by === "bob");
    } finally {
      await statek.close();
    }
  });

  it("a predicate decides per call: calls it lets through run at once, others wait", async () => {
    const { pay, runs } = payments(({ amount }) => amount > 100);
    const { statek, id } = await open([ts("print(await pay(20))\nprint(await pay(500))\nexit()")], [pay]);
    try {
      let view = await statek.runJob(id);
      assert.equal(view.status, "SUSPENDED");
      assert.deepEqual(runs.map((run) => run.amount), [20]);
      const [pending] = await statek.pendingApprovals();
      assert.deepEqual(pending!.args, { amount: 500 });
      await statek.approve(id, pending!.requestId);
      view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["paid 20", "paid 500"], "the first call's output is not printed twice");
      assert.deepEqual(runs.map((run) => [run.amount, run.approval?.by]), [[20, undefined], [500, "local"]], "by defaults to local");
    } finally {
      await statek.close();
    }
  });

  it("requestApproval(summary) resolves to the approver's note, or throws ApprovalDenied when denied", async () => {
    const cell = [
      "const note = await requestApproval('Send the newsletter to 10,000 people?')",
      "print('approved:', note)",
      "try { await requestApproval('And delete the list?') } catch (error) { print(error.name + ': ' + error.message) }",
      "exit()",
    ].join("\n");
    const { statek, id } = await open([ts(cell)], []);
    try {
      await statek.runJob(id);
      let [pending] = await statek.pendingApprovals({ jobId: id });
      assert.equal(pending!.tool, "requestApproval");
      assert.equal(pending!.summary, "Send the newsletter to 10,000 people?");
      await statek.approve(id, pending!.requestId, { note: "go ahead" });
      await statek.runJob(id);
      [pending] = await statek.pendingApprovals({ jobId: id });
      assert.equal(pending!.summary, "And delete the list?");
      await statek.deny(id, pending!.requestId);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["approved: go ahead", "ApprovalDenied: the request was denied"]);
    } finally {
      await statek.close();
    }
  });

  it("pendingApprovals filters by job and by role", async () => {
    const first = payments(true);
    const second = payments(true);
    const agentA = new Agent({ role: "a", model: scriptedModel([ts("await pay(1)")]), tools: [first.pay] });
    const agentB = new Agent({ role: "b", model: scriptedModel([ts("await pay(2)")]), tools: [second.pay] });
    const statek = await Statek.open({ store: ":memory:", agents: [agentA, agentB] });
    try {
      const { id: a } = await statek.submitJob(agentA);
      const { id: b } = await statek.submitJob(agentB);
      await statek.runJob(a);
      await statek.runJob(b);
      assert.deepEqual((await statek.pendingApprovals()).map((request) => request.jobId).sort(), [a, b].sort());
      assert.deepEqual((await statek.pendingApprovals({ role: "b" })).map((request) => request.jobId), [b]);
      assert.deepEqual((await statek.pendingApprovals({ jobId: a })).map((request) => request.args), [{ amount: 1 }]);
      assert.deepEqual(await statek.pendingApprovals({ role: "nobody" }), []);
      await assert.rejects(statek.pendingApprovals({ limit: 0 }), /limit must be a positive integer/);
    } finally {
      await statek.close();
    }
  });

  it("names the operator's mistakes: unknown job, unknown request, a second decision (naming the first), a job no longer waiting", async () => {
    const { statek, id } = await open([ts("await pay(9)\nexit()")]);
    try {
      await statek.runJob(id);
      const [pending] = await statek.pendingApprovals();
      await assert.rejects(statek.approve("no-such-job", pending!.requestId), NoSuchJobError);
      await assert.rejects(statek.approve(id, `${id}:0:99:approval`), (error: unknown) => error instanceof NoSuchApprovalError && /has no approval request/.test(error.message));
      await assert.rejects(statek.deny(id, ""), /requestId must be/);
      await statek.approve(id, pending!.requestId, { by: "alice" });
      await assert.rejects(statek.deny(id, pending!.requestId, { by: "bob" }), (error: unknown) => {
        assert.ok(error instanceof ApprovalDecidedError);
        assert.match(error.message, /already approved by alice at \d{4}-\d\d-\d\dT.*the first decision stands/);
        assert.equal(error.decision.by, "alice");
        return true;
      });
      await statek.runJob(id);
      assert.equal((await statek.getJob(id))!.status, "DONE");
      // A request of a job that ended without a decision (made here by hand: a job that failed meanwhile).
      const other = await open([ts("await pay(1)")]);
      try {
        await other.statek.runJob(other.id);
        const [left] = await other.statek.pendingApprovals();
        const row = (await other.statek.store.getJob(other.id))!;
        await other.statek.store.commit({ id: other.id, expectedVersion: row.version, job: { status: "FAILED", error: "stopped" } });
        await assert.rejects(other.statek.approve(other.id, left!.requestId), (error: unknown) => error instanceof JobNotWaitingError && /is FAILED: it no longer waits for approvals/.test(error.message));
      } finally {
        await other.statek.close();
      }
    } finally {
      await statek.close();
    }
  });

  it("a formal (provider) call of a tool that needs approval is refused with a reason the model reads", async () => {
    const { pay, runs } = payments(true);
    const model = scriptedModel([{ toolCalls: [{ name: "pay", args: { amount: 3 } }] }, ts("exit()")]);
    const agent = new Agent({ role: "formal", model, tools: [pay], toolsScope: "ALL" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      const call = view.history.find((record) => record.kind === "tool-call");
      assert.ok(call?.kind === "tool-call");
      assert.match(call.data.error ?? "", /^ApprovalRequiredError: pay needs a human's approval, which a formal tool call cannot wait for/);
      assert.deepEqual(runs, []);
    } finally {
      await statek.close();
    }
  });

  it("checks needsApproval at tool() time", () => {
    assert.throws(
      () => tool({ name: "x", description: "X.", needsApproval: "yes" as unknown as boolean, run: () => 1 }),
      /tool 'x': needsApproval must be true, false or a function/,
    );
  });
});
