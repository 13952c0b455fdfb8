/**
 * Approval requests and their records across interrupted steps: a call that asked is recorded asking once and
 * its decision once, whether the step that asked committed, was given up after the decision came, or was
 * killed before the request was stored (then it asks again: nothing ran).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type JobView } from "../src/index.ts";

const fixture = join(import.meta.dirname, "fixtures/approval-crash-job.ts");
const ts = (code: string) => "```ts\n" + code + "\n```";

interface Summary {
  status: string;
  exitStatus: unknown;
  calls: Array<{ name: string; result?: string; error?: string }>;
  approvals: Array<{ by: string; approved: boolean }>;
}

function summary(view: JobView): Summary {
  return {
    status: view.status,
    exitStatus: view.exitStatus,
    calls: view.history.flatMap((record) => (record.kind === "tool-call" ? [{ name: record.data.name, ...(record.data.result === undefined ? {} : { result: record.data.result }), ...(record.data.error === undefined ? {} : { error: record.data.error }) }] : [])),
    approvals: view.history.flatMap((record) => (record.kind === "approval" ? [{ by: record.data.by, approved: record.data.approved }] : [])),
  };
}

const asking = (result: string | undefined) => result?.startsWith("awaiting approval (") === true;

describe("approval records across interrupted steps", () => {
  it("a process killed after the call's intent, before its request: the call asks again, runs once when approved", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-approval-crash-"));
    const store = join(dir, "statek.db");
    const run = (command: string, env: Record<string, string> = {}) =>
      JSON.parse(execFileSync(process.execPath, [fixture, store, dir, command], { encoding: "utf8", env: { ...process.env, ...env } })) as Summary;
    try {
      run("submit");
      const killed = spawnSync(process.execPath, [fixture, store, dir, "run"], { env: { ...process.env, CRASH: "1" } });
      assert.equal(killed.signal, "SIGKILL", "the run was killed inside needsApproval");
      const waiting = run("run");
      assert.equal(waiting.status, "SUSPENDED", `waits for the approval, not in doubt: ${JSON.stringify(waiting.calls)}`);
      assert.equal(waiting.calls.length, 1);
      assert.ok(asking(waiting.calls[0]!.result), `asked again: ${JSON.stringify(waiting.calls)}`);
      const done = run("approve");
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, "receipt 5");
      assert.deepEqual(done.calls.map((call) => (asking(call.result) ? "asked" : call.result ?? call.error)), ["asked", "receipt 5"]);
      assert.deepEqual(done.approvals, [{ by: "tester", approved: true }]);
      assert.equal(readFileSync(join(dir, "transfers.log"), "utf8"), "5\n", "the transfer ran once");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** A job whose cell asks for a transfer, runs `between` while it waits, then gives its step up through `stop`. */
  async function interrupted(cell: string, decideInCell: boolean) {
    const dir = mkdtempSync(join(tmpdir(), "statek-approval-records-"));
    const abort = new AbortController();
    let transfers = 0;
    let statek: Statek | undefined;
    const transfer = tool({
      name: "transfer", description: "Moves money.", params: z.object({ n: z.number().describe("How much.") }), needsApproval: true,
      run: ({ n }) => {
        transfers++;
        return `receipt ${n}`;
      },
    });
    // Decides the request the cell made as soon as it is stored (an approval policy service answering at once).
    const decide = tool({
      name: "decide", description: "Approves the pending request.", params: z.object({}), idempotent: true,
      run: async (_args, ctx) => {
        for (;;) {
          const [request] = await statek!.pendingApprovals({ jobId: ctx.job.id });
          if (request) return void (await statek!.approve(ctx.job.id, request.requestId, { by: "policy" }));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
    });
    const stop = tool({ name: "stop", description: "Stops the step.", params: z.object({}), idempotent: true, run: async () => void abort.abort(new Error("stopping")) });
    const agent = new Agent({ role: "payer", model: scriptedModel([ts(cell)]), tools: [transfer, decide, stop] });
    statek = await Statek.open({ store: join(dir, "statek.db"), agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id);
      await assert.rejects(statek.step(id, { signal: abort.signal }));
      let view = await statek.runJob(id);
      if (!decideInCell) {
        assert.equal(view.status, "SUSPENDED");
        const [request] = await statek.pendingApprovals({ jobId: id });
        await statek.approve(id, request!.requestId, { by: "policy" });
        view = await statek.runJob(id);
      }
      return { view: summary(view), transfers };
    } finally {
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("approved at once, then the step given up: the retry records the request and the decision once", async () => {
    const { view, transfers } = await interrupted("const pending = transfer({ n: 5 })\nawait decide()\nconst receipt = await pending\nawait stop()\nexit(receipt)", true);
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, "receipt 5");
    assert.equal(transfers, 1);
    assert.deepEqual(view.calls.filter((call) => call.name === "transfer").map((call) => (asking(call.result) ? "asked" : call.result)), ["asked", "receipt 5"]);
    assert.deepEqual(view.approvals, [{ by: "policy", approved: true }]);
  });

  it("given up while the request waits: the suspension records the request once, the decision once", async () => {
    const { view, transfers } = await interrupted("const pending = transfer({ n: 5 })\nawait stop()\nconst receipt = await pending\nexit(receipt)", false);
    assert.equal(view.status, "DONE");
    assert.equal(view.exitStatus, "receipt 5");
    assert.equal(transfers, 1);
    assert.deepEqual(view.calls.filter((call) => call.name === "transfer").map((call) => (asking(call.result) ? "asked" : call.result)), ["asked", "receipt 5"]);
    assert.deepEqual(view.approvals, [{ by: "policy", approved: true }]);
  });
});
