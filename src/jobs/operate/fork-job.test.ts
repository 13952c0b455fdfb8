import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { ForkTurnError } from "../../errors/fork-turn-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { ModelProvider } from "../../models/model-provider.ts";
import { scriptedModel, type ScriptedModel } from "../../models/scripted-model.ts";
import { tool } from "../../tools/tool.ts";
import { Agent } from "../../agents/agent.ts";
import { Statek } from "../statek.ts";
import type { JobView } from "../history/job-view.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const directory = mkdtempSync(join(tmpdir(), "statek-forks-"));
after(() => rmSync(directory, { recursive: true, force: true }));

/** A provider `test` whose model ids name scripted models (`packageName` only has to be importable). */
function testProvider(models: Record<string, ScriptedModel>): ModelProvider {
  return { name: "test", packageName: "zod", create: () => (id: string) => models[id]! };
}

/** Three turns: `n` is 1 after the first, 2 after the second (with `extra`), and the third exits with it. */
const THREE_TURNS = [ts("let n = 1\nprint('one')"), ts("n = 2\nconst extra = 'x'\nprint('two')"), ts("exit(n)")];

/** What a user reads of a view, for comparing the original before and after a fork. */
const observed = (view: JobView | null) => view && { ...view, history: view.history.map((record) => ({ ...record })) };

describe("statek.forkJob", () => {
  it("forks a finished job at turn 1: turn 1's variables and history, another model, the original untouched", async () => {
    const models = { a: scriptedModel(THREE_TURNS), b: scriptedModel([ts("print(typeof extra)\nexit(n * 10)")]) };
    const agent = new Agent({ role: "counter", metadata: { MODEL: "test/a" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], models: { providers: [testProvider(models)] } });
    try {
      const { id } = await statek.submitJob(agent, { message: "Count." });
      const done = await statek.runJob(id);
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, 2);
      const before = observed(await statek.getJob(id));

      const { id: forkId } = await statek.forkJob(id, { atTurn: 1, model: "test/b" });
      assert.notEqual(forkId, id);
      const fork = (await statek.getJob(forkId))!;
      assert.equal(fork.status, "READY");
      assert.deepEqual(fork.forkedFrom, { jobId: id, turn: 1 });
      assert.equal(fork.turns, 1);
      assert.deepEqual(fork.variables, { n: 1 }, "the workspace as of the end of turn 1");
      assert.deepEqual(fork.console, ["one"]);
      const turns = fork.history.flatMap((record) => (record.kind === "model-response" ? [record.data.turn] : []));
      assert.deepEqual(turns, [1], "the history ends with turn 1's execution");
      assert.deepEqual(fork.history.map((record) => record.kind), done.history.slice(0, fork.history.length).map((record) => record.kind));

      const finished = await statek.runJob(forkId);
      assert.equal(finished.status, "DONE");
      assert.equal(finished.exitStatus, 10, "the fork asked its own model, with n as of turn 1");
      assert.deepEqual(finished.console, ["one", "undefined"], "nothing of turn 2 reached the fork");
      assert.equal(finished.turns, 2);
      assert.deepEqual(finished.forkedFrom, { jobId: id, turn: 1 });
      assert.equal(models.b.requests.length, 1);

      // At its last turn: everything but the records that closed the original (its DONE status).
      assert.equal(done.history.at(-1)?.kind, "status");
      const { id: lastId } = await statek.forkJob(id, { atTurn: 3 });
      const last = (await statek.getJob(lastId))!;
      assert.deepEqual(last.history.map((record) => record.kind), done.history.slice(0, -1).map((record) => record.kind));
      assert.deepEqual(last.variables, { n: 2, extra: "x" });

      assert.deepEqual(observed(await statek.getJob(id)), before, "the original is untouched");
      assert.equal((await statek.getJob(id))!.forkedFrom, undefined);
      assert.deepEqual((await statek.listJobs()).find((job) => job.id === forkId)?.forkedFrom, { jobId: id, turn: 1 });
    } finally {
      await statek.close();
    }
  });

  it("binds vars over the copied variables, adds the message, and forks a fork at its earlier turns", async () => {
    const models = { a: scriptedModel(THREE_TURNS), b: scriptedModel([ts("exit(n + bonus)")]), c: scriptedModel([ts("exit(typeof extra)")]) };
    const agent = new Agent({ role: "counter", metadata: { MODEL: "test/a" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], models: { providers: [testProvider(models)] } });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.runJob(id);
      const { id: forkId } = await statek.forkJob(id, { atTurn: 2, model: "test/b", message: "Add the bonus.", vars: { bonus: 40, n: 60 } });
      const fork = (await statek.getJob(forkId))!;
      assert.deepEqual(fork.variables, { n: 60, extra: "x", bonus: 40 });
      assert.deepEqual(fork.history.at(-1)?.kind, "user-message");
      assert.deepEqual(fork.history.at(-1)?.data, { text: "Add the bonus." });
      const done = await statek.runJob(forkId);
      assert.equal(done.exitStatus, 100);
      assert.match(JSON.stringify(models.b.requests[0]), /Add the bonus\./, "the model read the message");

      const { id: again } = await statek.forkJob(forkId, { atTurn: 1, model: "test/c" });
      assert.deepEqual((await statek.getJob(again))!.variables, { n: 1 });
      assert.deepEqual((await statek.getJob(again))!.forkedFrom, { jobId: forkId, turn: 1 });
      assert.equal((await statek.runJob(again)).exitStatus, "undefined");
    } finally {
      await statek.close();
    }
  });

  it("refuses an unknown job, a turn not reached, a turn still being executed and a bad atTurn, changing nothing", async () => {
    const wait = tool({ name: "waitFor", description: "Waits for a webhook.", params: z.object({ key: z.string().describe("Key.") }), run: ({ key }, ctx) => ctx.future(key) });
    const models = { a: scriptedModel([ts("let n = 1"), ts("n = 2\nconst answer = await waitFor('hook')\nexit(answer)")]), b: scriptedModel([ts("exit(n)")]) };
    const agent = new Agent({ role: "waiter", tools: [wait], metadata: { MODEL: "test/a" } });
    const statek = await Statek.open({ store: ":memory:", agents: [agent], models: { providers: [testProvider(models)] } });
    try {
      const { id } = await statek.submitJob(agent);
      const suspended = await statek.runJob(id);
      assert.equal(suspended.status, "SUSPENDED");
      assert.equal(suspended.turns, 2);
      await assert.rejects(statek.forkJob("no-such-job", { atTurn: 0 }), NoSuchJobError);
      await assert.rejects(statek.forkJob(id, { atTurn: 3 }), (error: unknown) => {
        assert.ok(error instanceof ForkTurnError);
        assert.match(error.message, /has 2 turns; there is no turn 3 to fork from/);
        return true;
      });
      await assert.rejects(statek.forkJob(id, { atTurn: 2 }), /has not ended turn 2: its response is still being executed \(the job is SUSPENDED\)/);
      await assert.rejects(statek.forkJob(id, { atTurn: -1 }), TypeError);
      await assert.rejects(statek.forkJob(id, { atTurn: 1.5 }), /atTurn must be a turn number/);
      await assert.rejects(statek.forkJob(id, { atTurn: 1, model: "" }), TypeError);
      assert.equal((await statek.listJobs()).length, 1, "no job was created");

      // The turn before the one in flight forks: without the wait, asking its model.
      const { id: forkId } = await statek.forkJob(id, { atTurn: 1, model: "test/b" });
      assert.deepEqual((await statek.getJob(forkId))!.variables, { n: 1 });
      assert.deepEqual(await statek.store.listFutures(forkId), []);
      assert.equal(await statek.store.getJournal(forkId), null);
      const done = await statek.runJob(forkId);
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, 1);
      assert.equal((await statek.getJob(id))!.status, "SUSPENDED");
    } finally {
      await statek.close();
    }
  });

  it("forks from another Statek on the same store file, with another agent whose model object is overridden", async () => {
    const path = join(directory, "fork-processes.db");
    const models = { a: scriptedModel(THREE_TURNS), b: scriptedModel([ts("exit(`b:${n}`)")]) };
    const agent = new Agent({ role: "counter", metadata: { MODEL: "test/a" } });
    const first = await Statek.open({ store: path, agents: [agent], models: { providers: [testProvider(models)] } });
    const { id } = await first.submitJob(agent);
    assert.equal((await first.runJob(id)).status, "DONE");
    await first.close();

    const reviewer = new Agent({ role: "reviewer", model: scriptedModel([ts("exit('object')")]) });
    const second = await Statek.open({ store: path, agents: [agent, reviewer], models: { providers: [testProvider(models)] } });
    try {
      const { id: forkId } = await second.forkJob(id, { atTurn: 1, agent: reviewer, model: "test/b" });
      const fork = (await second.getJob(forkId))!;
      assert.equal(fork.role, "reviewer");
      assert.deepEqual(fork.forkedFrom, { jobId: id, turn: 1 });
      const done = await second.runJob(forkId);
      assert.equal(done.exitStatus, "b:1", "the fork's model string wins over its agent's model object");
      assert.equal((await second.getJob(id))!.exitStatus, 2);
    } finally {
      await second.close();
    }
  });
});
