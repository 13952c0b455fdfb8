/**
 * `scriptedModel` as an agent's model in a service: each job replays the script from its first turn, so one
 * agent serves every job it is given (the README's worker example), and running out of turns says what to do.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

describe("scriptedModel in jobs", () => {
  it("replays the script for each job, however their steps interleave", async () => {
    const model = scriptedModel([ts("const n = 2 + 3"), ts("exit(n * factor)")]);
    const agent = new Agent({ role: "adder", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const ids = await Promise.all([1, 10, 100].map(async (factor) => (await statek.submitJob(agent, { vars: { factor } })).id));
      // Interleaved steps of three jobs: each still gets turn 1, then turn 2.
      for (const id of ids) assert.equal((await statek.step(id)).status, "STARTED");
      const views = await Promise.all(ids.map((id) => statek.runJob(id)));
      assert.deepEqual(views.map((view) => [view.status, view.exitStatus]), [["DONE", 5], ["DONE", 50], ["DONE", 500]]);
      assert.equal(model.turnsUsed, 6);
    } finally {
      await statek.close();
    }
  });

  it("shares one sequence with perJob: false, and an exhausted script names the job and what to do", async () => {
    const agent = new Agent({ role: "once", model: scriptedModel([ts("exit(1)")], { perJob: false }) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const first = (await statek.submitJob(agent)).id;
      assert.equal((await statek.runJob(first)).status, "DONE");
      const second = (await statek.submitJob(agent)).id;
      const view = await statek.runJob(second);
      assert.equal(view.status, "FAILED");
      assert.match(view.error!, new RegExp(`ScriptExhaustedError: scriptedModel: the script has 1 turn and a 2nd request was made by job ${second}; add turns to the script \\(with perJob: false every job takes the next turn; leave it out to replay the script per job\\), or use a real model`));
    } finally {
      await statek.close();
    }
  });

  it("counts per job: a job that asks for more turns than the script has fails alone", async () => {
    const model = scriptedModel(["Nothing to run here."]);
    const agent = new Agent({ role: "chatty", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const id = (await statek.submitJob(agent)).id;
      const view = await statek.runJob(id);
      assert.equal(view.status, "FAILED");
      assert.match(view.error!, /the script has 1 turn and a 2nd request was made by job/);
      assert.equal(model.remaining, 1, "calls outside a job still have the whole script");
    } finally {
      await statek.close();
    }
  });
});
