/**
 * Sub-tasks: a child job's handle has an `id` and a `state` read from the child's status each time —
 * the same in a later cell whether the parent's workspace stayed warm or was restored cold by a fresh Statek
 * over the same SQLite file; `findTask(id?)` gives the handle again; a child ends itself with
 * `completeTask(result)` or `failTask(reason)`; `delegateTask(role, { message, vars })` is the system tool of
 * an agent given `delegates`, and only those roles can be delegated to.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const dir = mkdtempSync(join(tmpdir(), "statek-sub-tasks-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIRST_CELL = [
  "const h = delegateTask('researcher', { message: 'Find owls.', vars: { topic: 'owls' } })",
  "const kept = { list: [h] }",
  "print(typeof h.id, h.role, h.state)",
].join("\n");
const SECOND_CELL = [
  "print(h.state, kept.list[0].state, kept.list[0].id === h.id)",
  "print(findTask(h.id).state, findTask().id === h.id, findTask(h.id).role)",
  "const result = await h",
  "print(result.answer, h.state)",
  "exit(result.answer)",
].join("\n");

/** The agents of one run: the parent delegates to the researcher, which completes its task with a result. */
function agents() {
  const researcher = new Agent({ role: "researcher", model: scriptedModel([ts("completeTask({ answer: topic.toUpperCase() })")]) });
  const lead = new Agent({ role: "lead", model: scriptedModel([ts(FIRST_CELL), ts(SECOND_CELL)]), delegates: [researcher] });
  return [lead, researcher] as const;
}

/**
 * Runs the parent's first cell, the child, then the parent's second cell; `cold` closes the Statek after the
 * first cell and opens a fresh one over the same file, so the second cell restores the workspace from rows.
 */
async function run(cold: boolean): Promise<{ console: string[]; exitStatus: unknown; childId: string; variable: unknown }> {
  const file = join(dir, `${cold ? "cold" : "warm"}.db`);
  let [lead, researcher] = agents();
  let statek = await Statek.open({ store: file, agents: [lead, researcher] });
  try {
    const { id } = await statek.submitJob(lead);
    await statek.step(id); // asks for the first cell
    await statek.step(id); // runs it, asks for the second
    const [child] = await statek.listJobs({ parentId: id });
    assert.ok(child, "delegateTask started a child");
    if (cold) {
      await statek.close();
      [lead, researcher] = agents();
      statek = await Statek.open({ store: file, agents: [lead, researcher] });
    }
    const childView = await statek.runJob(child.id);
    assert.equal(childView.status, "DONE");
    assert.equal(childView.parentId, id);
    const view = await statek.runJob(id);
    assert.equal(view.status, "DONE", view.error ?? "");
    return { console: view.console, exitStatus: view.exitStatus, childId: child.id, variable: view.variables.h };
  } finally {
    await statek.close();
  }
}

describe("sub-tasks", () => {
  it("a handle's id and live state read the same in a later cell, warm or restored cold; findTask finds it again", async () => {
    const warm = await run(false);
    const cold = await run(true);
    assert.deepEqual(warm.console, ["string researcher WAITING", "COMPLETED COMPLETED true", "COMPLETED true researcher", "OWLS COMPLETED"]);
    assert.deepEqual(cold.console, warm.console, "warm and cold read alike");
    assert.equal(cold.exitStatus, "OWLS");
    assert.deepEqual(cold.variable, { id: cold.childId, role: "researcher" }, "the job view shows the handle as its id and role");
  });

  it("failTask(reason) fails the child with that reason; the parent's await throws ChildJobFailed and the state reads ERROR", async () => {
    const child = new Agent({ role: "checker", model: scriptedModel([ts("failTask('no sources found')")]) });
    const cell = "const h = delegateTask('checker', { message: 'Check.' })\ntry { await h } catch (error) { print(error.name + ': ' + error.message) }\nprint(h.state)\nexit()";
    const lead = new Agent({ role: "lead", model: scriptedModel([ts(cell)]), delegates: [child] });
    const statek = await Statek.open({ store: ":memory:", agents: [lead, child] });
    try {
      const { id } = await statek.submitJob(lead);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const [summary] = await statek.listJobs({ parentId: id });
      const failed = await statek.runJob(summary!.id);
      assert.equal(failed.status, "FAILED");
      assert.equal(failed.error, "no sources found");
      const view = await statek.runJob(id);
      assert.deepEqual(view.console, [`ChildJobFailed: child job ${summary!.id} (checker) failed: no sources found`, "ERROR"]);
    } finally {
      await statek.close();
    }
  });

  it("refuses what is not a sub-task: completeTask in a job without a parent, findTask of another job's child, a role not delegated to", async () => {
    const other = new Agent({ role: "other", model: scriptedModel([ts("exit()")]) });
    const helper = new Agent({ role: "helper", model: scriptedModel([ts("exit()")]) });
    const lead = new Agent({
      role: "lead",
      delegates: [helper],
      model: scriptedModel([
        ts([
          "print(findTask())",
          "for (const attempt of [() => completeTask(1), () => failTask('x'), () => failTask(''), () => findTask(OTHER), () => findTask(42 as any), () => delegateTask('other', {})]) {",
          "  try { attempt() } catch (error) { print(error.name + ': ' + error.message) }",
          "}",
          "exit()",
        ].join("\n")),
      ]),
    });
    const statek = await Statek.open({ store: ":memory:", agents: [lead, helper, other] });
    try {
      const foreign = (await statek.submitJob(other)).id;
      const { id } = await statek.submitJob(lead, { vars: { OTHER: foreign } });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.deepEqual(view.console, [
        "null",
        "TypeError: completeTask(result): this job is not a sub-task (no job started it); end it with exit(status)",
        "TypeError: failTask(reason): this job is not a sub-task (no job started it); end it with exit(status)",
        "TypeError: failTask(reason): expected a sentence saying why the sub-task failed",
        `TypeError: findTask: this job has no sub-task ${foreign}`,
        "TypeError: findTask(id?): expected a sub-task's id (a string), or nothing for the latest",
        `TypeError: delegateTask: 'other' is not an agent this one delegates to ("helper")`,
      ]);
      assert.equal((await statek.listJobs({ parentId: id })).length, 0);
    } finally {
      await statek.close();
    }
  });

  it("delegates must be agents with distinct roles; delegateTask is listed only for agents that have them", () => {
    const helper = new Agent({ role: "helper" });
    assert.throws(() => new Agent({ role: "lead", delegates: [JSON.parse('{ "role": "x" }')] }), /Agent 'lead': every entry of delegates must be an Agent \(got a plain object\)/);
    assert.throws(() => new Agent({ role: "lead", delegates: [helper, new Agent({ role: "helper" })] }), /two agents with the role 'helper'/);
    assert.ok(new Agent({ role: "lead", delegates: [helper] }).registry.get("delegateTask"));
    assert.equal(new Agent({ role: "lead" }).registry.get("delegateTask"), undefined);
  });
});
