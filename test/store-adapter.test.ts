/**
 * The store's extension point from outside: an adapter written against `statek/store`'s public types alone
 * (test/fixtures/memory-adapter.ts, which holds no rule) passes the adapter conformance suite through
 * `createStore`, and a `Statek` runs a job on it. `createStore` names what an adapter lacks.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { createStore, runAdapterSuite } from "../src/store/index.ts";
import { MemoryAdapter } from "./fixtures/memory-adapter.ts";

runAdapterSuite({
  name: "an adapter of the public contract (JavaScript maps)",
  createAdapter: () => new MemoryAdapter(),
  damage: async (adapter, target) => (adapter as MemoryAdapter).damage(target),
});

describe("createStore", () => {
  it("makes a store a Statek runs jobs on", async () => {
    const agent = new Agent({ role: "adapted", model: scriptedModel(["```ts\nconst x = 20 + 1\n```", "```ts\nexit(x * 2)\n```"]) });
    const statek = await Statek.open({ store: createStore(new MemoryAdapter()), agents: [agent] });
    try {
      const { id } = await statek.submitJob(agent);
      const view = await statek.runJob(id);
      assert.deepEqual([view.status, view.exitStatus], ["DONE", 42]);
    } finally {
      await statek.close();
    }
  });

  it("names what an adapter lacks, and names the store in its errors", async () => {
    const { readNextClaim: _claims, transaction: _transaction, ...partial } = Object.fromEntries(
      Object.entries(Object.getOwnPropertyDescriptors(MemoryAdapter.prototype)).map(([name]) => [name, () => undefined]),
    );
    assert.throws(() => createStore({ ...partial, dialect: "memory", supportsMultipleProcesses: false } as never),
      /createStore: the adapter has no transaction, readNextClaim \(see StoreAdapter in statek\/store\)/);
    assert.throws(() => createStore(null as never), /expected a StoreAdapter/);
    const store = createStore(new MemoryAdapter(), { name: "my store" });
    await store.close();
    await assert.rejects(store.getJob("x"), /store is closed \(my store\)/);
  });
});
