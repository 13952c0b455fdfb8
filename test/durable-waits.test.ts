/**
 * Durable waits: a cell that waits only for durable futures suspends — the job is
 * `SUSPENDED`, only rows — and is resumed by replaying it up to the wait, which then yields. Suspension works
 * inside loops, helpers and `getAll`; a resumed cell prints nothing twice, in this process or another.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Statek with one agent whose first reply is `code`, on a fresh SQLite file. */
async function setUp(code: string, tools: Parameters<typeof tool>[0][] = []) {
  const dir = mkdtempSync(join(tmpdir(), "statek-waits-"));
  const agent = new Agent({ role: "waiter", tools: tools.map((definition) => tool(definition)), model: scriptedModel([ts(code), ts("exit('again?')")]) });
  const store = join(dir, "statek.db");
  const statek = await Statek.open({ store, agents: [agent] });
  const { id } = await statek.submitJob(agent);
  return {
    statek, id, agent, store,
    async close() {
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("durable waits", () => {
  it("sleep suspends the job until its time; stepping it early changes nothing; it resumes where it was", async () => {
    // Long enough that the early step below happens before the timer is due even on a loaded machine.
    const job = await setUp("print('before')\nconst t0 = Date.now()\nawait sleep(1500)\nprint('after')\nexit(Date.now() - t0 >= 1500)");
    try {
      const suspended = await job.statek.runJob(job.id);
      assert.equal(suspended.status, "SUSPENDED");
      assert.deepEqual(suspended.console, ["before"]);
      const row = await job.statek.store.getJob(job.id);
      assert.ok(row!.wakeAt! > Date.now(), "its wakeAt is the timer's due time");
      const early = await job.statek.step(job.id);
      if (Date.now() < row!.wakeAt!) assert.equal(early.status, "SUSPENDED", "too early: still waiting");
      await until(Math.max(0, row!.wakeAt! - Date.now()) + 20);
      const done = await job.statek.runJob(job.id);
      assert.equal(done.status, "DONE");
      assert.deepEqual(done.console, ["before", "after"], "nothing printed twice");
      assert.equal(done.exitStatus, true);
    } finally {
      await job.close();
    }
  });

  it("waitForMessage yields what was pushed, in order, whether it was pushed before or after the wait (a string stays a string)", async () => {
    const job = await setUp("const first = await waitForMessage()\nprint('got', first)\nconst second = await waitForMessage()\nexit([first, second, typeof second])");
    try {
      await job.statek.pushMessage(job.id, "early");
      let view = await job.statek.runJob(job.id);
      assert.equal(view.status, "SUSPENDED");
      assert.deepEqual(view.console, ["got early"]);
      await job.statek.pushMessage(job.id, "late");
      view = await job.statek.runJob(job.id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.exitStatus, ["early", "late", "string"]);
      assert.deepEqual(view.console, ["got early"]);
    } finally {
      await job.close();
    }
  });

  it("suspends inside a for loop, inside a helper function and inside getAll, and resumes in each", async () => {
    const job = await setUp([
      "async function twice(label) { await waitForMessage(); print(label); return label }",
      "const seen = []",
      "for (let i = 0; i < 2; i++) seen.push(await twice('loop ' + i))",
      "const [a, b] = await getAll([twice('all'), sleep(1500).then(() => 'slept')])",
      "exit([...seen, a, b])",
    ].join("\n"));
    try {
      const push = async (text: string) => {
        await job.statek.pushMessage(job.id, text);
        return job.statek.runJob(job.id);
      };
      assert.equal((await job.statek.runJob(job.id)).status, "SUSPENDED");
      assert.deepEqual((await push("1")).console, ["loop 0"]);
      assert.deepEqual((await push("2")).console, ["loop 0", "loop 1"]);
      const waiting = await push("3");
      assert.equal(waiting.status, "SUSPENDED", "getAll still waits for its sleep");
      await until((await job.statek.store.getJob(job.id))!.wakeAt! - Date.now() + 20);
      const done = await job.statek.runJob(job.id);
      assert.equal(done.status, "DONE");
      assert.deepEqual(done.exitStatus, ["loop 0", "loop 1", "all", "slept"]);
      assert.deepEqual(done.console, ["loop 0", "loop 1", "all"], "each line once");
    } finally {
      await job.close();
    }
  });

  it("a suspended job resumes in another process (a second Statek on the same file) and prints nothing twice", async () => {
    const job = await setUp("print('one')\nconst m = await waitForMessage()\nprint('two', m)\nexit(m)");
    try {
      assert.equal((await job.statek.runJob(job.id)).status, "SUSPENDED");
      const other = await Statek.open({ store: job.store, agents: [job.agent] });
      try {
        await other.pushMessage(job.id, "hi");
        const view = await other.runJob(job.id);
        assert.equal(view.status, "DONE");
        assert.deepEqual(view.console, ["one", "two hi"]);
      } finally {
        await other.close();
      }
    } finally {
      await job.close();
    }
  });

  it("a tool's durable future: resolved by the application (even before the job waits), rejected, or timed out", async () => {
    const job = await setUp(
      [
        "const a = await confirm('a')",
        "let b; try { b = await confirm('b') } catch (error) { b = error.name + ': ' + error.message }",
        "let c; try { c = await confirm('c', 200) } catch (error) { c = error.name }",
        "exit([a, b, c])",
      ].join("\n"),
      [{
        name: "confirm",
        description: "Asks the bank to confirm; the answer comes later.",
        params: z.object({ what: z.string().describe("What."), timeoutMs: z.number().optional().describe("Timeout.") }),
        run: ({ what, timeoutMs }, ctx) => ctx.future(`confirm:${String(what)}`, timeoutMs === undefined ? {} : { timeoutMs: Number(timeoutMs) }),
      }],
    );
    try {
      assert.equal(await job.statek.resolveFuture("confirm:a", { ok: true }), true, "settled before anyone waits");
      assert.equal(await job.statek.resolveFuture("confirm:a", { ok: false }), false, "first writer wins");
      assert.equal((await job.statek.runJob(job.id)).status, "SUSPENDED", "waits for b");
      await job.statek.rejectFuture("confirm:b", new RangeError("declined"));
      assert.equal((await job.statek.runJob(job.id)).status, "SUSPENDED", "waits for c");
      await until(220);
      const view = await job.statek.runJob(job.id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.exitStatus, [{ ok: true }, "RangeError: declined", "TimeoutError"]);
    } finally {
      await job.close();
    }
  });

  it("short sleeps stay in memory: the job does not suspend", async () => {
    const job = await setUp("await sleep(20)\nawait sleep(30)\nexit('quick')");
    try {
      const view = await job.statek.runJob(job.id);
      assert.equal(view.status, "DONE");
      assert.ok(!view.history.some((record) => record.kind === "status" && (record.data as { status?: string }).status === "SUSPENDED"));
    } finally {
      await job.close();
    }
  });
});
