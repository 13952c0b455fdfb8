/**
 * The record is complete: every tool call has its history record exactly once, whether it ran
 * in the step that committed, in an earlier attempt whose result the journal replays, or before a suspension.
 * (A call in doubt after `kill -9` is test/crash-replay.test.ts's; the chaos tests compare the application's own
 * rows with the history.)
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type JobView, type ScriptedTurn } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

const calls = (view: JobView) => view.history.flatMap((record) => (record.kind === "tool-call" ? [`${record.data.name}${record.data.args}=${record.data.result ?? record.data.error}`] : []));

describe("every tool call is recorded once", () => {
  it("a result delivered in a step that never committed is recorded by the step that replays it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-records-"));
    const abort = new AbortController();
    const rows: number[] = [];
    const note = tool({
      name: "note", description: "Writes a row.", params: z.object({ i: z.number().describe("Which.") }),
      run: async ({ i }) => {
        rows.push(i);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return i * 10;
      },
    });
    // The step is given up after both results were delivered to the cell (its worker is stopping).
    const stop = tool({ name: "stop", description: "Stops the step.", params: z.object({}), idempotent: true, run: async () => void abort.abort(new Error("stopping")) });
    const agent = new Agent({ role: "noter", model: scriptedModel([ts("const a = await note(1)\nconst b = await note(2)\nawait stop()\nexit(a + b)")]), tools: [note, stop] });
    const statek = await Statek.open({ store: join(dir, "statek.db"), agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      await statek.step(id);
      await assert.rejects(statek.step(id, { signal: abort.signal }));
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, 30);
      assert.deepEqual(rows, [1, 2], "each note ran once");
      assert.deepEqual(calls(view).filter((call) => call.startsWith("note")), ["note{i:1}=10", "note{i:2}=20"], "and is recorded once");
    } finally {
      await statek.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a call before a suspension is recorded once, by the suspension's commit", async () => {
    const note = tool({ name: "note", description: "Writes a row.", params: z.object({ i: z.number().describe("Which.") }), run: async ({ i }) => i });
    const agent = new Agent({ role: "sleeper", model: scriptedModel([ts("await note(1)\nawait sleep(150)\nawait note(2)\nexit('ok')")]), tools: [note] });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(calls(view), ["note{i:1}=1", "note{i:2}=2"]);
    } finally {
      await statek.close();
    }
  });

  // One reply runs several parts; when a later one suspends, the earlier ones run again on resume (replayed).
  const MULTI_PART: Array<{ style: string; turn: ScriptedTurn; expected: string[] }> = [
    {
      style: "a formal call before the reply's cell",
      turn: { text: ts("const text = await waitForMessage()\nawait note(2)\nexit(text)"), toolCalls: [{ name: "note", args: { i: 1 } }] },
      expected: ["note{i:1}=1", "note{i:2}=2"],
    },
    {
      style: "a ts_cli call before another that suspends (DIRECT)",
      turn: { toolCalls: [{ name: "ts_cli", args: { code: "await note(1)" } }, { name: "ts_cli", args: { code: "const text = await waitForMessage()\nawait note(2)\nexit(text)" } }] },
      expected: ["note{i:1}=1", "ts_cli{code:\"await note(1)\"}=1", "note{i:2}=2", "ts_cli{code:\"const text = await waitForMessage()\\nawait note(2)\\nexit(text)\"}=2"],
    },
  ];
  for (const { style, turn, expected } of MULTI_PART) {
    it(`a reply of several parts whose last suspends: each call recorded once (${style})`, async () => {
      const made: number[] = [];
      const note = tool({
        name: "note", description: "Writes a row.", params: z.object({ i: z.number().describe("Which.") }),
        run: async ({ i }) => {
          made.push(i);
          return i;
        },
      });
      const agent = new Agent({ role: "parts", model: scriptedModel([turn]), tools: [note], ...(style.includes("DIRECT") ? { chatStyle: "DIRECT" as const } : {}) });
      const statek = await Statek.open({ store: ":memory:", agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        assert.equal((await statek.runJob(id)).status, "SUSPENDED");
        await statek.pushMessage(id, "hello");
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE");
        assert.deepEqual(made, [1, 2], "each call made once");
        assert.deepEqual(calls(view), expected);
      } finally {
        await statek.close();
      }
    });
  }
});

describe("the history keeps the order things happened", () => {
  const order = (view: JobView) => view.history.flatMap((record) =>
    record.kind === "console" && record.data.stream === "out" ? [`print ${record.data.text}`] : record.kind === "tool-call" ? [`call ${record.data.name}${record.data.args}`] : []);
  const expected = ["print before", "call note{i:1}", "print between", "call note{i:2}", "print after"];

  for (const replayed of [false, true]) {
    it(`console output and tool calls are recorded in the order the cell made them${replayed ? ", also when a later step replays the calls from the journal" : ""}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "statek-order-"));
      const abort = new AbortController();
      const note = tool({ name: "note", description: "Writes a row.", params: z.object({ i: z.number().describe("Which.") }), run: ({ i }) => i });
      const stop = tool({ name: "stop", description: "Stops the step.", params: z.object({}), idempotent: true, run: async () => void (replayed && abort.abort(new Error("stopping"))) });
      const cell = "print('before')\nawait note(1)\nprint('between')\nawait note(2)\nprint('after')\nawait stop()\nexit(1)";
      const agent = new Agent({ role: "orderly", model: scriptedModel([ts(cell)]), tools: [note, stop] });
      const statek = await Statek.open({ store: join(dir, "statek.db"), agents: [agent] });
      try {
        const { id } = await statek.submitJob(agent);
        if (replayed) {
          await statek.step(id);
          await assert.rejects(statek.step(id, { signal: abort.signal }));
        }
        const view = await statek.runJob(id);
        assert.equal(view.status, "DONE", view.error ?? "");
        assert.deepEqual(order(view).filter((entry) => !entry.startsWith("call stop")), expected);
      } finally {
        await statek.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
