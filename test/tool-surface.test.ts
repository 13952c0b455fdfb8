/** The tool surface: internal (`_`) tools, tools made at run time, and promises used without `await`, through real jobs. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Agent, scriptedModel, tool } from "../src/index.ts";
import { runTestJob } from "../src/testing/index.ts";

const audit = tool({ name: "_audit", description: "Records an audit line.", params: z.object({ line: z.string().describe("What to record.") }), run: ({ line }) => `audited: ${line}` });
const lookup = tool({
  name: "lookup",
  description: "Looks up a customer.",
  params: z.object({ id: z.number().describe("Customer id.") }),
  run: async ({ id }) => ({ id, name: `customer ${id}` }),
});

describe("internal (_-named) tools, through a real job", () => {
  it("are called from agent code, and never listed in the prompt or offered formally", async () => {
    const model = scriptedModel(["```ts\nconst note = await _audit('x')\nprint(note)\nexit(note)\n```"]);
    const agent = new Agent({ role: "auditor", tools: [audit, lookup], toolsScope: "ALL", model });
    const view = await runTestJob(agent);
    assert.equal(view.status, "DONE", view.error ?? "");
    assert.equal(view.exitStatus, "audited: x");
    assert.doesNotMatch(model.requests[0]!.system, /_audit/);
    assert.match(model.requests[0]!.system, /lookup\(id: number\)/);
    assert.deepEqual(model.requests[0]!.tools.map((offered) => offered.name).sort(), ["brief", "docstr", "lookup"]);
  });
});

describe("an async tool's promise used without await, through a real job", () => {
  it("a notice names the call when the promise is printed, passed on or kept in a variable", async () => {
    const model = scriptedModel([
      "```ts\nconst customer = lookup(7)\nprint(customer)\nprint(customer.name)\n```",
      "```ts\nexit(1)\n```",
    ]);
    const view = await runTestJob(new Agent({ role: "forgetful", tools: [lookup], model }));
    assert.equal(view.status, "DONE", view.error ?? "");
    // (Whether the call was still pending when the cell ended depends on timing: that notice is left out.)
    const entries = view.history.filter((record) => record.kind === "console").map((record) => record.data)
      .filter((entry) => !/still pending/.test(entry.text));
    assert.deepEqual(entries, [
      { stream: "out", text: "[a Promise]" },
      { stream: "notice", text: "lookup(…) returned a promise that was used without await; write await lookup(…) to use its value" },
      { stream: "out", text: "undefined" },
      { stream: "notice", text: "customer was not persisted: the promise of lookup(…), never awaited (write await lookup(…) to keep its value)" },
    ]);
    // The model reads the notices with the output.
    const shown = JSON.stringify(model.requests[1]!.messages.at(-1));
    assert.match(shown, /write await lookup\(…\) to use its value/);
  });

  it("an awaited call gets no notice", async () => {
    const model = scriptedModel(["```ts\nconst customer = await lookup(7)\nprint(customer.name)\nexit(customer.id)\n```"]);
    const view = await runTestJob(new Agent({ role: "careful", tools: [lookup], model }));
    assert.equal(view.exitStatus, 7);
    assert.deepEqual(view.history.filter((record) => record.kind === "console").map((record) => record.data), [{ stream: "out", text: "customer 7" }]);
  });
});

describe("createTool: tools made at run time, through real jobs", () => {
  const approvals: number[] = [];
  const approveOrder = tool({
    name: "approveOrder",
    description: "Approve an order.",
    params: z.object({ id: z.number().describe("Order id."), note: z.string().optional().describe("A note.") }),
    run: ({ id, note }) => {
      approvals.push(id);
      return `approved ${id}${note ? ` (${note})` : ""}`;
    },
  });

  it("hidden warmup makes a tool the model sees listed and calls; it is rebuilt by a Statek that never saw it made (as another process)", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { Statek } = await import("../src/index.ts");
    const dir = mkdtempSync(join(tmpdir(), "statek-created-"));
    const store = join(dir, "jobs.db");
    const warmup = "// statek: hidden\ncreateTool('approveThisOrder', approveOrder, 'Approve the order this job is about.', [order.id, 'checked'])";
    const first = scriptedModel(["```ts\nprint(await approveThisOrder())\n```"]);
    const agentOf = (model: ReturnType<typeof scriptedModel>) => new Agent({ role: "approver", tools: [approveOrder], warmup, model, allowedTools: ["approveOrder"] });
    try {
      const agent = agentOf(first);
      let statek = await Statek.open({ store, agents: [agent] });
      const { id } = await statek.submitJob(agent, { vars: { order: { id: 17 } } });
      await statek.runJob(id, { maxSteps: 1 });
      await statek.close();
      assert.match(first.requests[0]!.system, /approveThisOrder\(\) — Approve the order this job is about\./);
      // Another process, another agent object: the made tool is rebuilt from the job's state.
      const second = scriptedModel(["```ts\nconst again = approveThisOrder\nexit(await again())\n```"]);
      statek = await Statek.open({ store, agents: [agentOf(second)] });
      const view = await statek.runJob(id);
      await statek.close();
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.equal(view.exitStatus, "approved 17 (checked)");
      assert.deepEqual(approvals, [17, 17]);
      assert.deepEqual(view.console.slice(0, 1), ["approved 17 (checked)"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the model's own code cannot make tools, and a name already taken is refused", async () => {
    const model = scriptedModel(["```ts\ncreateTool('mine', approveOrder, 'Mine.', [1])\n```", "```ts\nexit(0)\n```"]);
    const view = await runTestJob(new Agent({
      role: "sneaky", tools: [approveOrder], model,
      warmup: "// statek: hidden\ncreateTool('approveOrder', approveOrder, 'Again.', [2])",
    }));
    assert.equal(view.status, "FAILED");
    assert.match(view.error ?? "", /createTool: the name 'approveOrder' is taken in this job/);
    const refused = await runTestJob(new Agent({ role: "model-made", tools: [approveOrder], model: scriptedModel(["```ts\ncreateTool('mine', approveOrder, 'Mine.', [1])\n```", "```ts\nexit(0)\n```"]) }));
    assert.equal(refused.console[0], "NameError: tool 'createTool' is not exposed to this job");
  });
});
