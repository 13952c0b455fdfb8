import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("a warmed thread that is idle does not keep its process alive", async () => {
    // A process that only warms the shared thread ends on its own once the thread is ready and idle.
    const script = [
      `import { sharedCheckerThread } from ${JSON.stringify(new URL("./checker-thread.ts", import.meta.url).href)};`,
      "const thread = sharedCheckerThread();",
      "thread.warm();",
      // Held until the thread is ready (or 20 s), then nothing is left but the idle thread.
      "const until = Date.now() + 20000;",
      "const wait = () => { if (!thread.ready && Date.now() < until) setTimeout(wait, 20); };",
      "wait();",
    ].join("\n");
    // A file, as an application is (a script given with `-e` ends differently).
    const dir = mkdtempSync(join(tmpdir(), "statek-checker-exit-"));
    writeFileSync(join(dir, "warm.mjs"), script);
    const child = spawn(process.execPath, [join(dir, "warm.mjs")], { stdio: "ignore" });
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const [code, signal] = await once(child, "exit");
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, "the process exited by itself, not killed after 30 s");
  });

  it("answers checks after close as unchecked", async () => {
    const thread = new CheckerThread();
    await thread.close();
    assert.deepEqual(await thread.check({ declarations, cells: [], variables: [], cell: "1" }), { kind: "unchecked", reason: "the type checker is closed" });
    assert.throws(() => new CheckerThread({ timeoutMs: 0 }), /CheckerThread: timeoutMs must be a positive number, got 0/);
  });
});
