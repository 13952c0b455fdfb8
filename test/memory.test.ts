/**
 * Shared memory through real jobs: the application's handle (set, get, list, delete), jobs bound to a context
 * reading it merged with broader ones, names in scope read-only, remember/listMemory, the prompt, and the view.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";

describe("shared memory, through real jobs", () => {
  it("a bound job reads its context merged with broader ones; names are in scope, read-only, listed in the prompt", async () => {
    const model = scriptedModel([
      ts("print(tone, greeting, typeof secret)\ntone = 'loud'"),
      ts("exit([tone, greeting])"),
    ]);
    const agent = new Agent({ role: "helper", model });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    try {
      await statek.memory("user:42", "team:7").set({ category: "preference", key: "tone", value: "formal", description: "Prefers formal" });
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "greeting", value: "Hello", description: "How the team greets" });
      await statek.memory("team:7").set({ category: "VOCABULARY", key: "tone", value: "casual" });
      await statek.memory("other").set({ category: "ENTITY", key: "secret", value: 1 });
      assert.equal(await statek.memory("team:7", "user:42", "team:7").get("tone"), "formal", "the most specific context wins");
      assert.equal(await statek.memory("team:7").get("tone"), "casual");
      const { id } = await statek.submitJob(agent, { message: "go", memory: ["team:7", "user:42"] });
      const view = await statek.runJob(id);
      assert.equal(view.status, "DONE", view.error ?? "");
      assert.deepEqual(view.exitStatus, ["formal", "Hello"]);
      const out = view.history.filter((record) => record.kind === "console").map((record) => record.data.text);
      assert.deepEqual(out, ["formal Hello undefined", "PermissionError: 'tone' is shared memory and read-only here; use remember(…)"]);
      assert.deepEqual(Object.keys(view.variables), [], "memory names never become workspace variables");
      assert.match(model.requests[0]!.system, /Available variables: greeting \(VOCABULARY, shared memory\), tone \(PREFERENCE, shared memory\)/);
      assert.doesNotMatch(model.requests[0]!.system, /remember\(/, "a read-only job is not told of remember");
      assert.deepEqual(view.memory?.entries.map((entry) => [entry.key, entry.value, entry.context]), [["greeting", "Hello", ["team:7"]], ["tone", "formal", ["team:7", "user:42"]]]);
      assert.equal(await statek.memory("team:7", "user:42").get("tone"), "formal", "the refused write changed nothing");
    } finally {
      await statek.close();
    }
  });
});
