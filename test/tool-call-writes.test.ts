/**
 * What a side-effecting tool call costs the store: its intent is made durable before it runs and its result before
 * the guest reads it — two journal writes, whatever the cell did before (and the model's reply one of its own as it
 * arrives). A cell of many calls must not make more,
 * and each write must carry only what is new (the journal is never rewritten).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

/** A SQLite store that counts its journal writes and the entries they carry. */
function countingStore(): { store: Store; writes: () => number; entries: () => number } {
  const inner = createSqliteStore({ path: ":memory:" });
  let writes = 0;
  let entries = 0;
  const store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property === "appendJournal") {
        return (...args: Parameters<Store["appendJournal"]>) => {
          writes++;
          entries += args[3].length;
          return target.appendJournal(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, writes: () => writes, entries: () => entries };
}

describe("side-effecting tool calls in one cell", () => {
  it("make two journal writes each, each carrying only the call's own entries", async () => {
    const CALLS = 300;
    const effect = tool({ name: "effect", description: "A side effect.", run: () => 1 });
    const agent = new Agent({ role: "writer", tools: [effect], model: scriptedModel([ts(`let total = 0\nfor (let i = 0; i < ${CALLS}; i++) total += await effect()\ntotal`), ts("exit(total)")]) });
    const { store, writes, entries } = countingStore();
    const statek = await Statek.open({ store, agents: [agent] });
    try {
      const view = await statek.runJob((await statek.submitJob(agent)).id);
      assert.equal(view.exitStatus, CALLS);
      // Plus one per model reply (two turns), made durable as it arrives.
      assert.ok(writes() <= 2 * CALLS + 2, `${writes()} journal writes for ${CALLS} calls`);
      assert.ok(writes() >= CALLS, "each call's intent was made durable before it ran");
      // An intent and a result per call; the reads and deliveries in between ride along with them.
      assert.ok(entries() <= 4 * CALLS + 10, `${entries()} journal entries written for ${CALLS} calls`);
    } finally {
      await statek.close();
      await store.close();
    }
  });
});
