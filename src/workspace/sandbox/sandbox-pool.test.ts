import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createQuickJsExecutor } from "../quickjs/quickjs-executor.ts";
import { Workspace } from "../workspace.ts";
import { SandboxPool } from "./sandbox-pool.ts";
import type { PooledExecutor } from "./sandbox-pool.ts";

const NATIVE_LOOP = "Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)";

function open(executor: PooledExecutor, cellTimeMs = 300) {
  return Workspace.open({ executor, limits: { cellTimeMs }, job: { id: "j", role: "r" }, tools: [], globals: {}, bindings: new Map() }, []);
}

describe("sandbox pools", () => {
  it("belong to their executor: two executors share no thread, and a thread stopped in one leaves the other's VMs alone", async () => {
    const first = createQuickJsExecutor({ pool: { threads: 1, maxThreads: 1 } });
    const second = createQuickJsExecutor({ pool: { threads: 1, maxThreads: 1 } });
    const looping = await open(first);
    const neighbour = await open(first, 5_000);
    const other = await open(second, 5_000);
    try {
      await neighbour.runCell("const kept = 1");
      await other.runCell("const kept = 2");
      assert.equal(first.pool.threadCount, 1);
      assert.equal(second.pool.threadCount, 1);
      assert.notEqual(first.pool.threads[0], second.pool.threads[0], "each pool has threads of its own");
      assert.match((await looping.runCell(NATIVE_LOOP)).error ?? "", /^TimeoutError: /);
      const sameThread = await neighbour.runCell("kept + 1");
      const otherThread = await other.runCell("kept + 1");
      assert.deepEqual(otherThread.console.map((entry) => entry.text), ["3"]);
      assert.equal(otherThread.console.some((entry) => entry.stream === "notice"), false, "the other executor's VM was not touched");
      assert.deepEqual(sameThread.console.map((entry) => entry.text), ["2"], "the same executor's VM was rebuilt from its stored variables");
    } finally {
      looping.dispose();
      neighbour.dispose();
      other.dispose();
      first.close();
      second.close();
    }
  });

  it("start threads only as work needs them, and end them all when the executor is closed", async () => {
    const executor = createQuickJsExecutor({ pool: { threads: 2 } });
    assert.equal(executor.pool.threadCount, 0, "no thread before the first VM");
    const workspace = await open(executor);
    await workspace.runCell("1");
    assert.equal(executor.pool.threadCount, 1, "one job needs one thread");
    workspace.dispose();
    const threads = executor.pool.threads;
    executor.close();
    assert.ok(threads.every((thread) => thread.lost), "closing the executor ended its threads");
    assert.equal(executor.pool.threadCount, 0);
    await assert.rejects(open(executor), /the sandbox pool is closed/);
  });

  it("can be shared by executors that are given it", async () => {
    const pool = new SandboxPool({ threads: 1 });
    const quickjs = createQuickJsExecutor({ pool });
    const again = createQuickJsExecutor({ pool });
    assert.equal(quickjs.pool, again.pool);
    const one = await open(quickjs);
    const two = await open(again);
    try {
      await one.runCell("1");
      await two.runCell("2");
      assert.equal(pool.threadCount, 1);
    } finally {
      one.dispose();
      two.dispose();
      pool.close();
    }
  });

  it("refuses bad settings when the executor is made, naming them", () => {
    assert.throws(() => createQuickJsExecutor({ pool: { threads: 0 } }), /sandbox pool: threads must be a positive integer, got 0/);
    assert.throws(() => createQuickJsExecutor({ pool: { threads: 2, maxThreads: 1 } }), /sandbox pool: maxThreads must be an integer of at least threads \(2\), got 1/);
    assert.throws(() => createQuickJsExecutor({ pool: { readyVms: -1 } }), /sandbox pool: readyVms must be a non-negative integer, got -1/);
    assert.throws(() => createQuickJsExecutor({ pool: { thread: 2 } as never }), /sandbox pool: unknown option thread/);
  });
});
