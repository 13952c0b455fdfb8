import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CheckerThread } from "./checker-thread.ts";

const declarations = "declare function pay(amount: number): Promise<string>;";

describe("the checker thread", () => {
  it("checks cells on a thread of its own, one after another, and says how much heap it holds", async () => {
    const thread = new CheckerThread();
    try {
      const [wrong, right] = await Promise.all([
        thread.check({ declarations, cells: [], variables: [], cell: "await pay('ten')" }),
        thread.check({ declarations, cells: [], variables: [], cell: "await pay(10)" }),
      ]);
      assert.equal(wrong.kind, "checked");
      assert.deepEqual(wrong.kind === "checked" && wrong.errors.map((error) => error.code), [2345]);
      assert.deepEqual(right.kind === "checked" && right.errors, []);
      assert.equal(thread.checksAnswered, 2);
      const heap = await thread.heapUsage();
      assert.ok(heap.usedBytes > 0 && heap.usedBytes <= heap.totalBytes);
    } finally {
      await thread.close();
    }
  });

  it("leaves a cell unchecked when its check takes too long, and starts a new thread for the next", async () => {
    const thread = new CheckerThread({ timeoutMs: 1 });
    try {
      const verdict = await thread.check({ declarations, cells: [], variables: [], cell: "await pay(10)" });
      assert.deepEqual(verdict, { kind: "unchecked", reason: "type checking took longer than 1 ms" });
      await thread.check({ declarations, cells: [], variables: [], cell: "await pay(10)" });
      assert.equal(thread.threadStarts, 2);
    } finally {
      await thread.close();
    }
  });

  it("leaves a cell unchecked when the thread fails (the compiler out of memory), and says why", async () => {
    const thread = new CheckerThread({ maxHeapMb: 8 });
    try {
      const verdict = await thread.check({ declarations, cells: [], variables: [], cell: "await pay(10)" });
      assert.equal(verdict.kind, "unchecked");
      assert.match(verdict.kind === "unchecked" ? verdict.reason : "", /the type checker/);
    } finally {
      await thread.close();
    }
  });

  it("answers a cell checked again against the same input from its first check, and checks it anew when a declaration changed", async () => {
    const thread = new CheckerThread();
    const count = (type: string) => [{ name: "count", type: { holds: "value" as const, shape: { kind: "name" as const, text: type } } }];
    const cell = "await pay(count)";
    try {
      const first = await thread.check({ declarations, cells: [], variables: count("number"), cell });
      assert.deepEqual(first.kind === "checked" && first.errors, []);
      const again = await thread.check({ declarations, cells: [], variables: count("number"), cell });
      assert.deepEqual(again, { kind: "checked", errors: [], durationMs: 0 });
      assert.equal(thread.checksAnswered, 1);
      assert.equal(thread.checksCached, 1);
      // The same cell text, the variable's type changed between steps: the kept verdict is not the answer.
      const changedVariable = await thread.check({ declarations, cells: [], variables: count("string"), cell });
      assert.deepEqual(changedVariable.kind === "checked" && changedVariable.errors.map((error) => error.code), [2345]);
      // The same cell and variable, the tool's declaration changed.
      const changedTool = await thread.check({ declarations: "declare function pay(amount: string): Promise<string>;", cells: [], variables: count("number"), cell });
      assert.deepEqual(changedTool.kind === "checked" && changedTool.errors.map((error) => error.code), [2345]);
      assert.equal(thread.checksAnswered, 3);
      assert.equal(thread.checksCached, 1);
    } finally {
      await thread.close();
    }
    const uncached = new CheckerThread({ cachedChecks: 0 });
    try {
      await uncached.check({ declarations, cells: [], variables: [], cell: "await pay(10)" });
      await uncached.check({ declarations, cells: [], variables: [], cell: "await pay(10)" });
      assert.equal(uncached.checksAnswered, 2);
      assert.equal(uncached.checksCached, 0);
    } finally {
      await uncached.close();
    }
  });

  it("answers checks after close as unchecked", async () => {
    const thread = new CheckerThread();
    await thread.close();
    assert.deepEqual(await thread.check({ declarations, cells: [], variables: [], cell: "1" }), { kind: "unchecked", reason: "the type checker is closed" });
    assert.throws(() => new CheckerThread({ timeoutMs: 0 }), /CheckerThread: timeoutMs must be a positive number, got 0/);
  });
});
