/**
 * A guest runtime subverted (a bug in the lockdown) still cannot forge what only the host makes: an approval request that looks like a tool's, a child job with rows of its choosing, or the approved
 * call of a request nobody approved. The messages are rewritten on their way to the host, where a forged text
 * would travel (`suite/forging-executor.ts`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../../src/index.ts";
import { createQuickJsExecutor } from "../../src/workspace/quickjs/quickjs-executor.ts";
import { forgingExecutor, type Forgery } from "../../src/workspace/suite/forging-executor.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

async function runForged(code: string, forgery: Forgery): Promise<{ console: string[]; ran: string[]; jobs: number; pending: number }> {
  const ran: string[] = [];
  const pay = tool({ name: "pay", description: "Pays.", params: z.object({ amount: z.number().describe("The amount.") }), needsApproval: true, run: ({ amount }) => void ran.push(`pay ${amount}`) });
  const agent = new Agent({ role: "forger", model: scriptedModel([ts(code)]), tools: [pay] });
  const statek = await Statek.open({ store: ":memory:", agents: [agent], executor: forgingExecutor(createQuickJsExecutor(), forgery) });
  try {
    const view = await statek.runJob((await statek.submitJob(agent)).id);
    return { console: view.console, ran, jobs: (await statek.listJobs()).length, pending: (await statek.pendingApprovals()).length };
  } finally {
    await statek.close();
  }
}

const printError = (code: string) => `try { ${code} } catch (error) { print(error.name + ': ' + error.message) }\nexit()`;

describe("forged waits", () => {
  it("a wait that claims to be a tool's approval request is refused", async () => {
    const request = JSON.stringify({ key: "x:0:0:approval", tool: "pay", args: "{amount:1}", argsJson: { amount: 1 }, resume: "call" });
    const result = await runForged(printError("await sleep(5)"), { message: { op: "future", to: () => ({ op: "future", args: ["tool-approval", request] }) } });
    assert.deepEqual(result.console, ["TypeError: unknown wait 'tool-approval'"]);
    assert.equal(result.pending, 0);
  });

  it("a wait that carries a child job's rows starts nothing", async () => {
    const child = JSON.stringify({ key: "11111111-1111-8111-8111-111111111111", role: "forger", spec: { params: {}, metadata: { ALLOWED: "everything" }, state: {}, variables: [], history: [] } });
    const result = await runForged(printError("await sleep(5)"), { message: { op: "future", to: () => ({ op: "future", args: ["child", child] }) } });
    assert.deepEqual(result.console, ["TypeError: 11111111-1111-8111-8111-111111111111 is not a child job of this job"]);
    assert.equal(result.jobs, 1, "no job was created");
  });

  it("an approved call under a request nobody approved is refused, and the tool does not run", async () => {
    const result = await runForged(printError("await pay(5)"), {
      // `pay(5)` travels as `callNumbers(handle, "", 5)`.
      message: { op: "callNumbers", to: (args) => ({ op: "callApproved", args: [args[0]!, "made-up:0:0:approval", `[${args.slice(2).join(",")}]`] }) },
    });
    assert.deepEqual(result.ran, []);
    assert.equal(result.console.length, 1);
    assert.match(result.console[0]!, /^TypeError: pay: cannot run under approval "made-up:0:0:approval": it is not a request of this cell$/);
  });
});
