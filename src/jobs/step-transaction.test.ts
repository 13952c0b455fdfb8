import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../index.ts";
import { createSqliteStore } from "../store/sqlite/sqlite-store.ts";
import type { Store } from "../store/store.ts";

/** A real SQLite store whose journal writes are recorded (what each `appendJournal` wrote, by item). */
function recordingStore(): { store: Store; writes: string[][] } {
  const store = createSqliteStore({ path: ":memory:" });
  const writes: string[][] = [];
  const recording = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "appendJournal") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<Store["appendJournal"]>) => {
        writes.push(args[3].map((entry) => {
          const item = entry.data as { t: string; w?: string };
          return `${item.t}${item.w ? ` ${item.w}` : ""}`;
        }));
        return target.appendJournal(...args);
      };
    },
  });
  return { store: recording, writes };
}

describe("StepTransaction", () => {
  it("writes a cell's journal up to its last effect only: the commit that ends the cell deletes the rest unwritten", async () => {
    const { store, writes } = recordingStore();
    const sent: string[] = [];
    const send = tool({ name: "send", description: "Sends.", params: z.object({ text: z.string().describe("What.") }), run: ({ text }) => void sent.push(text) });
    const model = scriptedModel(["```ts\nconst t = Date.now()\nawait send('a')\nconst u = Math.random()\nprint(u < 1)\n```", "```ts\nexit(1)\n```"]);
    const agent = new Agent({ role: "journal", model, tools: [send] });
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["true"]);
      assert.deepEqual(sent, ["a"]);
      // The effect's intent (and the read before it) are durable before it runs, its result before the cell goes
      // on; the read and the prints after it, and the whole of the last cell, are never written.
      assert.deepEqual(writes, [["msg Date.now()", "intent send(…)"], ["done"]]);
      assert.equal(await store.getJournal(id), null);
    } finally {
      await statek.close();
    }
  });
});
