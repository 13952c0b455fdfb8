/**
 * Waits of any length: a durable sleep of 25 days or 30 years, and an application's future with a
 * 30-day timeout, wait — the job suspends with its `wakeAt` that far off, and neither the step's own timer nor a
 * worker's ends it early (one `setTimeout` over 2³¹−1 ms fires after 1 ms). `sleep(Infinity)`, NaN and
 * non-numbers are refused with a clear error in the cell. (The timers' re-arming itself, with a clock the test
 * controls, is src/workspace/long-timer.test.ts.)
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const DAY = 24 * 3_600_000;

describe("waits of any length", () => {
  for (const [name, ms] of [["25 days", 2 ** 31 + 5_000], ["30 years", Math.round(30 * 365.25 * DAY)]] as const) {
    it(`sleep of ${name}: the job suspends until then, and a worker does not wake it early`, async () => {
      const agent = new Agent({ role: "patient", model: scriptedModel([ts(`await sleep(${ms})\nexit('woke')`)]) });
      const statek = await Statek.open({ store: ":memory:", agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        const before = Date.now();
        const view = await statek.runJob(id);
        assert.equal(view.status, "SUSPENDED", `the ${name} sleep did not end at once`);
        const row = await statek.store.getJob(id);
        assert.ok(row!.wakeAt! >= before + ms && row!.wakeAt! <= Date.now() + ms, `wakeAt is ${name} away`);
        const worker = statek.worker({ leaseMs: 400 });
        await worker.start();
        // Several of the worker's safety claims and timer refreshes come and go meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 600));
        await worker.stop();
        assert.equal(worker.stats.steps, 0, "the worker had nothing to step");
        assert.equal((await statek.getJob(id))?.status, "SUSPENDED");
        const [timer] = await statek.store.listFutures(id);
        assert.equal(timer?.state, "waiting");
      } finally {
        await statek.close();
      }
    });
  }

  it("an application's future with a 30-day timeout waits; it times out only when its time comes", async () => {
    const wait = tool({ name: "wait", description: "Waits for the webhook.", params: z.object({}), run: (_args, ctx) => ctx.future("follow-up", { timeoutMs: 30 * DAY }) });
    const agent = new Agent({ role: "follower", model: scriptedModel([ts("exit(await wait())")]), tools: [wait] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "SUSPENDED", view.console.join("\n"));
      const future = await statek.store.getFuture("follow-up");
      assert.equal(future?.state, "waiting");
      assert.ok(future!.wakeAt! > Date.now() + 29 * DAY);
      assert.equal(await statek.resolveFuture("follow-up", "answered"), true);
      assert.equal((await statek.runJob(id)).exitStatus, "answered");
    } finally {
      await statek.close();
    }
  });

  it("sleep(Infinity), NaN and non-numbers are refused with a clear error", async () => {
    const agent = new Agent({
      role: "careless",
      model: scriptedModel([ts([
        "for (const ms of [Infinity, NaN, '5', null]) { try { await sleep(ms); print('slept') } catch (error) { print(error.message) } }",
        "exit('done')",
      ].join("\n"))]),
      // What sleep refuses at run time is what a type-checked cell never passes it.
      typeCheck: "off",
    });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, [
        "sleep(ms): expected a finite number of milliseconds, got Infinity",
        "sleep(ms): expected a finite number of milliseconds, got NaN",
        "sleep(ms): expected a finite number of milliseconds, got string",
        "sleep(ms): expected a finite number of milliseconds, got null",
      ]);
    } finally {
      await statek.close();
    }
  });
});
