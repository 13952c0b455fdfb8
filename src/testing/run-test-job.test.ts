/** `runTestJob` (statek/testing): one job of an agent, start to end, in a private in-memory store. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, tool, type JobView } from "../index.ts";
import { runTestJob, scriptedModel } from "./index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const add = tool({ description: "Add.", params: z.object({ a: z.number().describe("A."), b: z.number().describe("B.") }), run: function add({ a, b }) { return a + b; } });

describe("runTestJob", () => {
  it("runs the job to its end and returns its view; the model's requests stay readable", async () => {
    const model = scriptedModel([ts("const sum = await add(2, 3)"), ts("exit(sum)")]);
    const view = await runTestJob(new Agent({ role: "adder", tools: [add], model }), { message: "Add 2 and 3.", toolsScope: "ALL" });
    assert.deepEqual([view.status, view.exitStatus, view.turns], ["DONE", 5, 2]);
    assert.match(model.requests[0]!.system, /add\(a: number, b: number\) — Add\./);
    assert.deepEqual(model.requests[0]!.tools.map((payload) => payload.name), ["add", "brief", "docstr"]);
  });

  it("calls setup with the open Statek, passes its options, and stops after maxSteps", async () => {
    class Counter {
      count = 0;
    }
    const counter = new Counter();
    const seen: string[] = [];
    const model = scriptedModel([ts("counter.count += 1"), ts("counter.count += 1"), ts("exit()")]);
    const view: JobView = await runTestJob(new Agent({ role: "counting", model }), {
      vars: { counter },
      statek: { bindings: { counter }, harness: { maxTurns: 10 } },
      setup: (statek) => {
        statek.expose(Counter, {});
        seen.push(typeof statek.submitJob);
      },
      maxSteps: 2,
    });
    assert.deepEqual(seen, ["function"]);
    assert.equal(view.status, "STARTED", "two steps: the first reply asked for, then run");
    assert.equal(counter.count, 1);
  });
});
