/**
 * @module
 * Conformance cases: shared memory — entries written, replaced (their creation time kept) and deleted by context
 * and key, read for several contexts at once in a fixed order, values kept as the JSON they were, bad entries
 * refused before anything is written, and a second connection seeing what the first wrote.
 */
import assert from "node:assert/strict";
import type { MemoryEntry } from "../store.ts";
import type { SuiteContext } from "./suite-context.ts";

const USER = JSON.stringify(["user:42"]);
const BOTH = JSON.stringify(["team:7", "user:42"]);
const TEAM = JSON.stringify(["team:7"]);

const entry = (context: string, key: string, value: MemoryEntry["value"], at = 1_700_000_000_000): MemoryEntry => ({
  context, key, category: "PREFERENCE", value, description: `the ${key}`, createdAt: at, updatedAt: at,
});

/** Defines the memory cases. */
export function memoryCases({ test, testShared }: SuiteContext): void {
  test("memory entries are written, read by context in order, replaced keeping their creation time, and deleted", async (store) => {
    await store.putMemory(entry(BOTH, "tone", "formal"));
    await store.putMemory(entry(USER, "name", { first: "Ada", titles: ["Dr"], age: 36, vip: true, note: null }));
    await store.putMemory(entry(TEAM, "tone", "casual"));
    await store.putMemory(entry(JSON.stringify(["other"]), "tone", "loud"));
    const read = await store.readMemory([USER, BOTH, TEAM, JSON.stringify([])]);
    assert.deepEqual(read.map((row) => [row.context, row.key, row.value]), [
      [BOTH, "tone", "formal"], [TEAM, "tone", "casual"], [USER, "name", { first: "Ada", titles: ["Dr"], age: 36, vip: true, note: null }],
    ]);
    assert.deepEqual(read[0], entry(BOTH, "tone", "formal"), "ordered by context byte by byte, then key");
    await store.putMemory({ ...entry(BOTH, "tone", "very formal", 1_800_000_000_000), category: "VOCABULARY", description: "changed" });
    const [replaced] = await store.readMemory([BOTH]);
    assert.deepEqual(replaced, {
      context: BOTH, key: "tone", category: "VOCABULARY", value: "very formal", description: "changed", createdAt: 1_700_000_000_000, updatedAt: 1_800_000_000_000,
    });
    assert.equal(await store.deleteMemory(BOTH, "tone"), true);
    assert.equal(await store.deleteMemory(BOTH, "tone"), false);
    assert.deepEqual((await store.readMemory([BOTH])), []);
    assert.deepEqual(await store.readMemory([]), [], "no context, no entries");
  });

  test("bad memory entries and contexts are refused, naming the field, and nothing is written", async (store) => {
    await assert.rejects(store.putMemory(entry('["b","a"]', "tone", 1)), { name: "TypeError", message: /putMemory: context must be a context/ });
    await assert.rejects(store.putMemory(entry(USER, "", 1)), /putMemory: key must be a non-empty string/);
    await assert.rejects(store.putMemory({ ...entry(USER, "tone", 1), category: "" }), /putMemory: category must be a non-empty string/);
    await assert.rejects(store.putMemory({ ...entry(USER, "tone", 1), updatedAt: -1 }), /putMemory: updatedAt must be a non-negative integer/);
    await assert.rejects(store.readMemory(["user:42"]), /readMemory: contexts\[0\] must be a context/);
    await assert.rejects(store.deleteMemory(USER, ""), /deleteMemory: key must be a non-empty string/);
    assert.deepEqual(await store.readMemory([USER]), []);
  });

  testShared("memory written through one connection is read through another", async (first, second) => {
    await first.putMemory(entry(USER, "tone", "formal"));
    assert.deepEqual((await second.readMemory([USER])).map((row) => row.value), ["formal"]);
    await second.putMemory(entry(USER, "tone", "brief", 1_800_000_000_000));
    assert.deepEqual((await first.readMemory([USER])).map((row) => [row.value, row.createdAt]), [["brief", 1_700_000_000_000]]);
  });
}
