import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { tool } from "../../tools/tool.ts";
import { createQuickJsExecutor } from "../quickjs/quickjs-executor.ts";
import { compileCell } from "../cell-compiler.ts";
import { DEFAULT_VM_LIMITS, type VmHost } from "../executor.ts";
import type { JournalItem } from "../cell-journal.ts";
import { Workspace } from "../workspace.ts";
import { SandboxThread } from "./sandbox-thread.ts";
import { SEQ_LIMIT } from "./thread-protocol.ts";
import { ThreadVm } from "./thread-vm.ts";

// One sandbox thread for this file's workspaces, so that a stopped thread takes every other VM with it.
const executor = createQuickJsExecutor({ pool: { threads: 1 } });

const NATIVE_LOOP = "Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)";

function open(globals: Record<string, unknown> = {}, tools: Parameters<typeof Workspace.open>[0]["tools"] = [], cellTimeMs = 300) {
  return Workspace.open({ executor, limits: { cellTimeMs }, job: { id: "j", role: "r" }, tools, globals, bindings: new Map() }, []);
}

/** A promise and the function that settles it. */
function gate<T>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("sandbox threads", () => {
  it("stop a native loop the engine cannot interrupt, and keep the scheduling thread free meanwhile", async () => {
    const looping = await open();
    try {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const started = performance.now();
      const result = await looping.runCell(`const kept = 1\n${NATIVE_LOOP}`);
      clearInterval(ticker);
      assert.equal(result.error, "TimeoutError: the cell used more than its 300 ms CPU time limit and was stopped");
      assert.deepEqual(result.console.filter((entry) => entry.stream === "notice").map((entry) => entry.text), [
        "the cell was stopped inside a built-in the engine could not interrupt, so its sandbox thread was stopped; the variables this cell changed were not saved: the workspace continues from the variables saved before it",
      ]);
      assert.ok(performance.now() - started < 5_000, "stopped a margin past the limit, not at the entry limit");
      assert.ok(ticks >= 10, `the scheduling thread kept running its own timers (${ticks} ticks)`);
      assert.deepEqual((await looping.runCell("typeof kept")).console.map((entry) => entry.text), ["undefined"], "a new VM, from the variables saved before");
      assert.equal(executor.pool.threadCount, 1, "the stopped thread was replaced");
    } finally {
      looping.dispose();
    }
  });

  it("replay a cell whose VM was lost for another job's cell: nothing printed twice, no tool run twice", async () => {
    const calls: number[] = [];
    const waiting = gate<void>();
    const release = gate<number>();
    const fetchValue = tool({
      name: "fetchValue",
      description: "Fetches a value (waits for the test to release it).",
      params: z.object({ n: z.number().describe("A number.") }),
      run: async ({ n }) => {
        calls.push(n);
        waiting.open();
        return (await release.promise) + n;
      },
    });
    const patient = await open({}, [fetchValue], 2_000);
    const looping = await open();
    try {
      const cell = patient.runCell("print('before')\nconst value = await fetchValue(1)\nprint('after', value)\nvalue");
      await waiting.promise;
      // The patient cell waits for its tool; the other job's native loop stops the thread they share.
      const stopped = await looping.runCell(NATIVE_LOOP);
      assert.match(stopped.error ?? "", /^TimeoutError: /);
      release.open(41);
      const report = await cell;
      assert.equal(report.error, undefined);
      assert.deepEqual(report.console.map((entry) => entry.text), ["before", "after 42", "42"]);
      assert.deepEqual(calls, [1], "the tool ran once");
      assert.deepEqual(report.toolCalls.map((call) => call.name), ["fetchValue"]);
      assert.deepEqual(report.put.map((row) => row.name), ["value"]);
    } finally {
      patient.dispose();
      looping.dispose();
    }
  });

  it("run a cell queued behind a stopped one in a new VM", async () => {
    const looping = await open();
    const queued = await open({}, [], 2_000);
    try {
      await queued.runCell("const base = 40");
      const [stopped, next] = await Promise.all([looping.runCell(NATIVE_LOOP), queued.runCell("base + 2")]);
      assert.match(stopped.error ?? "", /^TimeoutError: /);
      assert.equal(next.error, undefined);
      assert.deepEqual(next.console.map((entry) => entry.text), ["42"]);
    } finally {
      looping.dispose();
      queued.dispose();
    }
  });

  it("give the records of an earlier attempt's calls to a cell replayed after its queued start was lost", async () => {
    const paid: number[] = [];
    const pay = tool({
      name: "pay",
      description: "Pays an amount.",
      params: z.object({ n: z.number().describe("The amount.") }),
      run: ({ n }) => {
        paid.push(n);
        return `paid ${n}`;
      },
    });
    const sink = () => {
      const items: JournalItem[] = [];
      return { items, append: (more: readonly JournalItem[]) => void items.push(...more), flush: async () => {} };
    };
    const code = "const receipt = await pay({ n: 1 })\nprint(receipt)";
    // An earlier attempt (another worker, before a crash) paid and journaled the call with its record.
    const earlier = await open({}, [pay], 2_000);
    const attempt = sink();
    await earlier.runCell(code, { journal: { sink: attempt } });
    earlier.dispose();
    assert.deepEqual(paid, [1]);
    const looping = await open();
    const queued = await open({}, [pay], 2_000);
    try {
      await queued.runCell("1");
      // The replaying cell's start waits behind the other job's native loop and is lost with the thread.
      const [stopped, replayed] = await Promise.all([looping.runCell(NATIVE_LOOP), queued.runCell(code, { journal: { journal: attempt.items, sink: sink() } })]);
      assert.match(stopped.error ?? "", /^TimeoutError: /);
      assert.equal(replayed.error, undefined);
      assert.deepEqual(paid, [1], "the call was not made again");
      assert.deepEqual(replayed.toolCalls.map((call) => call.name), ["pay"], "its record is the step's");
      assert.deepEqual(replayed.console.map((entry) => entry.text), ["paid 1"]);
    } finally {
      looping.dispose();
      queued.dispose();
    }
  });

  it("replay a loop of awaited host calls whose VM was lost in the middle", async () => {
    let ticks = 0;
    let stopHalfway: (() => void) | undefined;
    const halfway = new Promise<void>((resolve) => (stopHalfway = resolve));
    const counter = {
      tick: (i: number) => new Promise<number>((resolve) => {
        ticks++;
        if (i === 5) stopHalfway!();
        setTimeout(() => resolve(i), i === 5 ? 400 : 1);
      }),
    };
    const patient = await open({ counter }, [], 5_000);
    const looping = await open();
    try {
      const cell = patient.runCell("let total = 0\nfor (let i = 1; i <= 10; i++) total += await counter.tick(i)\ntotal");
      await halfway;
      assert.match((await looping.runCell(NATIVE_LOOP)).error ?? "", /^TimeoutError: /);
      const report = await cell;
      assert.equal(report.error, undefined);
      assert.deepEqual(report.console.map((entry) => entry.text), ["55"]);
      assert.equal(ticks, 10, "each host call made once");
    } finally {
      patient.dispose();
      looping.dispose();
    }
  });
});

describe("a sandbox thread whose sequence numbers wrap", () => {
  it("runs, stops and cancels cells past 2³¹ commands as before it", async () => {
    const thread = new SandboxThread({ settings: {}, firstSeq: SEQ_LIMIT - 3 });
    const host: VmHost = { receive: () => "", idle: async ({ ended }) => ({ end: ended ? "finished" : "stalled" }) };
    await thread.command({ kind: "create", vm: 1, engine: "quickjs", limits: DEFAULT_VM_LIMITS, invokeTimeMs: 5_000 });
    const vm = new ThreadVm(thread, 1, host, 5_000);
    try {
      const script = (code: string) => (compileCell(code) as { script: string }).script;
      // Each cell is a command or more: these take the numbers past the wrap.
      for (let cell = 0; cell < 6; cell++) assert.equal((await vm.runCell(script(`${cell} + 1`), { timeLimitMs: 2_000 })).error, undefined);
      const controller = new AbortController();
      const cancelled = vm.runCell(script("while (true) {}"), { timeLimitMs: 60_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      assert.equal((await cancelled).error?.name, "AbortError", "a cancel reaches the cell after the wrap");
      const fresh = new ThreadVm(thread, 2, host, 5_000);
      await thread.command({ kind: "create", vm: 2, engine: "quickjs", limits: DEFAULT_VM_LIMITS, invokeTimeMs: 5_000 });
      const stopped = await fresh.runCell(script("while (true) {}"), { timeLimitMs: 60_000, wallTimeMs: 200 });
      assert.match(stopped.error?.message ?? "", /wall-clock limit/, "so does a stop");
      fresh.dispose();
    } finally {
      vm.dispose();
      thread.close();
    }
  });
});
