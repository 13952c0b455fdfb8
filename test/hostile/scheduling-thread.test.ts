/**
 * Hostile code against the scheduling thread: while a cell waits in a host call, the host may read a workspace
 * variable in its VM (argument binding, a tool's `ctx.variable`). A cell whose variable never finishes reading
 * must not hold the scheduling thread — every job of the worker waits while it is held. A neighbour job keeps
 * stepping while the hostile cell abuses the read a tool makes while it runs (the one the host must answer
 * synchronously; reads for argument binding never hold it, see `ends-and-reads.test.ts`), warm and cold.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel } from "../../src/index.ts";
import { Calendar, hostileTools } from "./hostile-harness.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/**
 * The longest the scheduling thread may go without running its timers. A read the host waited for until the
 * cell's CPU limit or the executor's entry limit (5 s) would hold it that long; the host waits 50 ms at most.
 */
const LONGEST_GAP_MS = 1_000;

for (const mode of ["cold", "warm"] as const) {
  describe(`the scheduling thread, while a cell's variable never finishes reading (${mode})`, () => {
    it("keeps running: a neighbour job steps to its end before the hostile cell is over", async () => {
      const { peek } = hostileTools();
      const calendar = new Calendar();
      const hostile = new Agent({
        role: "hostile",
        tools: [peek],
        context: { calendar },
        model: scriptedModel([
          ts([
            "globalThis.trap = { get value() { for (;;) {} } }",
            "for (let i = 0; i < 20; i++) {",
            "  try { peek() } catch {}",
            "  await calendar.later(20)",
            "}",
            // Saving a variable runs its getters too (on a sandbox thread, up to the entry limit): not this case's business.
            "delete globalThis.trap",
          ].join("\n")),
          ts("exit('done')"),
        ]),
      });
      const neighbour = new Agent({
        role: "neighbour",
        model: scriptedModel(Array.from({ length: 6 }, (_, step) => ts(step < 5 ? `const step${step} = ${step}` : "exit('stepped')"))),
      });
      const statek = await Statek.open({ store: ":memory:", agents: [hostile, neighbour], warmJobs: mode === "warm" ? 100 : 0 });
      let last = performance.now();
      let longest = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 5);
      try {
        let neighbourDone = 0;
        let hostileDone = 0;
        const [bad, good] = await Promise.all([
          statek.submitJob(hostile).then(({ id }) => statek.runJob(id)).then((view) => ((hostileDone = performance.now()), view)),
          statek.submitJob(neighbour).then(({ id }) => statek.runJob(id)).then((view) => ((neighbourDone = performance.now()), view)),
        ]);
        clearInterval(ticker);
        assert.equal(good.status, "DONE", good.error ?? "");
        assert.equal(good.exitStatus, "stepped");
        assert.equal(bad.status, "DONE", bad.error ?? bad.console.join("\n"));
        assert.ok(neighbourDone < hostileDone, "the neighbour finished its six steps while the hostile job was still running");
        assert.ok(longest < LONGEST_GAP_MS, `the scheduling thread was held for ${longest.toFixed(0)} ms`);
      } finally {
        clearInterval(ticker);
        await statek.close();
      }
    });
  });
}
