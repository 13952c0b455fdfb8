import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { WORKSPACE_GLOBALS_NOTE } from "../src/workspace/workspace-notes.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

function tools() {
  return {
    read: tool({ name: "read", description: "Reads.", run: () => "data" }),
    write: tool({ name: "write", description: "Writes.", params: z.object({ value: z.string().describe("What.") }), run: ({ value }) => `wrote ${value}` }),
    internal: tool({ name: "internal", description: "Internal.", hidden: true, run: () => "internal" }),
  };
}

describe("sandbox options of Statek and Agent", () => {
  it("tells the model how its code is isolated, from the executor in use", async () => {
    for (const [executor, expected] of [
      [undefined, /Your code runs in an isolated sandbox \(the quickjs executor\)/],
      ["trusted", /Your code runs in the trusted executor, which is NOT a sandbox/],
    ] as const) {
      const model = scriptedModel([ts("exit(1)")]);
      const agent = new Agent({ role: "isolation", model });
      const statek = await Statek.open({ store: ":memory:", agents: [agent], ...(executor ? { executor } : {}) });
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      await statek.close();
      assert.equal(view.status, "DONE");
      assert.match(model.requests[0]!.system, expected);
      assert.ok(model.requests[0]!.system.includes(`\n${WORKSPACE_GLOBALS_NOTE}\n`), "the default prompt says what the workspace has");
    }
  });

  it("runs jobs under the trusted executor when asked by name", async () => {
    const agent = new Agent({ role: "trusted", model: scriptedModel([ts("const x = [1, 2, 3].map((n) => n * 2)"), ts("exit(x)")]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], executor: "trusted" });
    const view = await statek.runJob((await statek.submitJob(agent)).id);
    await statek.close();
    assert.deepEqual(view.exitStatus, [2, 4, 6]);
  });

  it("refuses an unknown executor and bad limits when opening", async () => {
    await assert.rejects(Statek.open({ store: ":memory:", executor: "docker" as never }), /^TypeError: Statek\.open: executor: expected "quickjs", "trusted" or an Executor, got "docker"$/);
    await assert.rejects(Statek.open({ store: ":memory:", workspaceLimits: { memoryBytes: 0 } }), /workspace limit memoryBytes: expected a positive integer, got 0/);
    await assert.rejects(Statek.open({ store: ":memory:", workspaceLimits: { memoryBytes: 16 * 1024 * 1024 } }), /workspace limit memoryBytes: expected at least 24 MiB for the quickjs executor/);
  });

  it("checks the agent's allowed tool set on every call from code", async () => {
    const { read, write, internal } = tools();
    const agent = new Agent({
      role: "allowed",
      tools: [read, write, internal],
      allowedTools: ["read"],
      model: scriptedModel([ts("print(read())\nprint(typeof internal)\nwrite('x')"), ts("exit('ok')")]),
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const view = await statek.runJob((await statek.submitJob(agent)).id);
    await statek.close();
    assert.deepEqual(view.console.slice(0, 3), ["data", "function", "NameError: tool 'write' is not exposed to this job"]);
  });

  it("lets a job replace its agent's allowed tool set", async () => {
    const { read, write, internal } = tools();
    const agent = new Agent({
      role: "per-job",
      tools: [read, write, internal],
      allowedTools: ["read"],
      model: scriptedModel([ts("print(write('y'))\nread()"), ts("exit('ok')")]),
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const view = await statek.runJob((await statek.submitJob(agent, { allowedTools: ["write"] })).id);
    assert.deepEqual(view.console.slice(0, 2), ["wrote y", "NameError: tool 'read' is not exposed to this job"]);
    await assert.rejects(statek.submitJob(agent, { allowedTools: ["nope"] }), /submitJob: allowedTools names 'nope', which is not one of the agent's tools \(read, write, internal, brief, docstr\)/);
    await statek.close();
    assert.throws(() => new Agent({ role: "bad", tools: [read], allowedTools: ["write"] }), /Agent 'bad': allowedTools names 'write'/);
  });
});
