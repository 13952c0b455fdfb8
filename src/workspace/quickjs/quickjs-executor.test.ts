import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileCell } from "../cell-compiler.ts";
import { DEFAULT_VM_LIMITS, type VmHost } from "../executor.ts";
import { Workspace } from "../workspace.ts";
import { runWorkspaceSuite } from "../workspace.suite.ts";
import { createQuickJsExecutor } from "./quickjs-executor.ts";

runWorkspaceSuite({ name: "quickjs", executor: createQuickJsExecutor });

/** The executor of this file's own cases (one sandbox pool for them all, as in a worker). */
const shared = createQuickJsExecutor();

function script(code: string): string {
  const compiled = compileCell(code);
  assert.equal(compiled.kind, "script");
  return (compiled as { script: string }).script;
}

/** A host that answers every message with an empty reply and records it. */
function recordingHost(): { host: VmHost; messages: Array<[string, readonly string[]]> } {
  const messages: Array<[string, readonly string[]]> = [];
  return {
    messages,
    host: { receive: (op, args) => (messages.push([op, args]), ""), idle: async ({ ended }) => ({ end: ended ? "finished" : "stalled" }) },
  };
}

async function openWorkspace(globals: Record<string, unknown> = {}, limits = {}) {
  return Workspace.open(
    { executor: shared, limits: { cellTimeMs: 2_000, ...limits }, job: { id: "j", role: "r" }, tools: [], globals, bindings: new Map() },
    [],
  );
}

describe("quickjs executor", () => {
  it("is the isolating executor", () => {
    const executor = createQuickJsExecutor();
    assert.equal(executor.name, "quickjs");
    assert.equal(executor.isolated, true);
  });

  it("reports the guest heap in use", async () => {
    const vm = await shared.createVm({ limits: DEFAULT_VM_LIMITS, host: recordingHost().host });
    try {
      const before = vm.memoryUsage();
      assert.equal(typeof before, "number");
      assert.ok(before! > 0);
      const { cpuMs, ...outcome } = await vm.runCell(script("globalThis.big = Array.from({ length: 100_000 }, (_, i) => ({ i }))"), { timeLimitMs: 2_000 });
      assert.deepEqual(outcome, {});
      assert.ok(cpuMs! > 0, "reports the CPU time the cell used");
      assert.ok(vm.memoryUsage()! > before! + 1_000_000, "grows with the guest's allocations");
    } finally {
      vm.dispose();
    }
  });

  it("sends messages to the host and reports the cell's end", async () => {
    const { host, messages } = recordingHost();
    const vm = await shared.createVm({ limits: DEFAULT_VM_LIMITS, host });
    try {
      const { cpuMs: _printed, ...printed } = await vm.runCell(script("print('hi')"), { timeLimitMs: 1_000 });
      assert.deepEqual(printed, {});
      assert.deepEqual(messages.map(([op]) => op), ["begin", "print"], "the engine says when the cell's own code starts");
      const { cpuMs: _thrown, ...thrown } = await vm.runCell(script("throw new TypeError('x')"), { timeLimitMs: 1_000 });
      assert.deepEqual(thrown, { error: { name: "TypeError", message: "x" } });
    } finally {
      vm.dispose();
    }
  });

  it("survives 1,000 host calls in one VM", async () => {
    let calls = 0;
    const counter = {
      next: () => ++calls,
      later: async () => ++calls,
      item: () => ({ nested: [calls] }),
    };
    const workspace = await openWorkspace({ counter });
    try {
      const sync = await workspace.runCell("let total = 0\nfor (let i = 0; i < 1000; i++) total += counter.next()\ntotal");
      assert.equal(sync.error, undefined);
      assert.deepEqual(sync.console.map((entry) => entry.text), [String((1000 * 1001) / 2)]);
      const mixed = await workspace.runCell("for (let i = 0; i < 500; i++) { await counter.later(); counter.item().nested[0] }\ncounter.next()");
      assert.equal(mixed.error, undefined);
      assert.deepEqual(mixed.console.map((entry) => entry.text), ["1501"]);
      const after = await workspace.runCell("total + 1");
      assert.deepEqual(after.console.map((entry) => entry.text), ["500501"]);
    } finally {
      workspace.dispose();
    }
  });

  it("marks a VM that hit its time limit as poisoned", async () => {
    const vm = await shared.createVm({ limits: DEFAULT_VM_LIMITS, host: recordingHost().host });
    try {
      const outcome = await vm.runCell(script("while (true) {}"), { timeLimitMs: 100 });
      assert.equal(outcome.poisoned, true);
      assert.equal(outcome.error?.name, "TimeoutError");
    } finally {
      vm.dispose();
    }
  });

  it("stops a cell that allocates past the memory limit, then rebuilds the VM from the stored variables", async () => {
    const workspace = await openWorkspace({}, { memoryBytes: 32 * 1024 * 1024 });
    const expected = "MemoryLimitError: the cell ran out of memory: the workspace VM is limited to 32 MiB (memoryBytes); the VM was discarded";
    try {
      assert.equal((await workspace.runCell("const kept = 41")).error, undefined);
      const strings = await workspace.runCell("const lost = 1\nconst big = 'x'.repeat(64 * 1024 * 1024)");
      assert.equal(strings.error, expected);
      assert.equal(strings.limit, "memory");
      assert.deepEqual(strings.put, [], "the cell's changes are not saved");
      const typed = await workspace.runCell("const bytes = new Uint8Array(64 * 1024 * 1024)");
      assert.equal(typed.error, expected);
      const after = await workspace.runCell("print(kept + 1, typeof lost)");
      assert.deepEqual(after.console.map((entry) => entry.text), ["42 undefined"], "a new VM restored from the stored variables");
    } finally {
      workspace.dispose();
    }
    const next = await openWorkspace();
    try {
      assert.deepEqual((await next.runCell("1 + 1")).console.map((entry) => entry.text), ["2"]);
    } finally {
      next.dispose();
    }
  });

  it("gives deep recursion a RangeError", async () => {
    const workspace = await openWorkspace();
    try {
      const result = await workspace.runCell("function down(n) { return down(n + 1) }\ndown(0)");
      assert.equal(result.error, "RangeError: Maximum call stack size exceeded");
    } finally {
      workspace.dispose();
    }
  });

  it("abandons a cell when its signal is aborted", async () => {
    const controller = new AbortController();
    const slow = { wait: () => new Promise((resolve) => setTimeout(resolve, 20)) };
    const workspace = await Workspace.open(
      { executor: shared, job: { id: "j", role: "r" }, tools: [], globals: { slow }, bindings: new Map(), signal: controller.signal },
      [],
    );
    try {
      setTimeout(() => controller.abort(), 30);
      const result = await workspace.runCell("while (true) await slow.wait()");
      assert.equal(result.error, "AbortError: the cell was cancelled");
    } finally {
      workspace.dispose();
    }
  });

  it("dispose is idempotent", async () => {
    const vm = await shared.createVm({ limits: DEFAULT_VM_LIMITS, host: recordingHost().host });
    vm.dispose();
    vm.dispose();
    const workspace = await openWorkspace();
    await workspace.runCell("const x = 1");
    workspace.dispose();
    workspace.dispose();
    await assert.rejects(workspace.runCell("x"), /disposed/);
  });
});

describe("quickjs executor: bounds", () => {
  const MiB = 1024 * 1024;

  it("holds a VM to its memory bound even where QuickJS's allocation limit is overrun", async () => {
    const workspace = await openWorkspace({}, { memoryBytes: 32 * MiB, cellTimeMs: 10_000 });
    try {
      // A Map of short strings is the pattern that took the worker to ~900 MB under a shared module.
      const result = await workspace.runCell("const m = new Map()\nfor (let i = 0; ; i++) m.set(i, 'x'.repeat(100) + i)");
      assert.equal(result.limit, "memory");
      assert.match(result.error ?? "", /^MemoryLimitError: /);
      assert.equal(workspace.memory().limitBytes, 32 * MiB);
    } finally {
      workspace.dispose();
    }
  });

  it("contains a stack that outgrows the worker's own inside the engine", async () => {
    const workspace = await openWorkspace({}, { stackBytes: 2 * MiB });
    try {
      await workspace.runCell("const kept = 1");
      const deep = await workspace.runCell("function down(n) { return down(n + 1) + 1 }\ndown(0)");
      assert.match(deep.error ?? "", /^RangeError: Maximum call stack size exceeded/);
      assert.deepEqual((await workspace.runCell("kept + 1")).console.map((entry) => entry.text), ["2"], "rebuilt from the stored variables");
    } finally {
      workspace.dispose();
    }
  });

  it("refuses bounds it cannot honour, naming the limit", async () => {
    await assert.rejects(openWorkspace({}, { memoryBytes: 8 * MiB }), /workspace limit memoryBytes: expected at least 24 MiB for the quickjs executor, got 8388608/);
    await assert.rejects(openWorkspace({}, { stackBytes: 16 * MiB }), /workspace limit stackBytes: expected at most 4 MiB for the quickjs executor/);
    await assert.rejects(openWorkspace({}, { cellTimeMs: -1 }), /workspace limit cellTimeMs: expected a positive integer, got -1/);
    await assert.rejects(openWorkspace({}, { cpuSeconds: 1 } as never), /workspace limit cpuSeconds: expected one of the known limits/);
  });
});

describe("quickjs executor: memory held and given back", () => {
  const MiB = 1024 * 1024;
  const BOUND = 32 * MiB;

  it("never lets a cell take its VM past the memory bound, whatever it allocates", async () => {
    const bombs = [
      "const big = 'x'.repeat(2 ** 28)",
      "const bytes = new Uint8Array(64 * 1024 * 1024)",
      "const chunks = []\nfor (;;) chunks.push(new Uint8Array(1 << 20))",
      "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, 'x'.repeat(100) + i)",
      "const rows = []\nfor (;;) rows.push({ a: rows.length, b: [rows.length] })",
      "let s = 'ab'\nfor (;;) s = (s + s).slice(1)",
      "const fns = []\nfor (let i = 0; ; i++) { const captured = new Array(1000).fill(i); fns.push(() => captured) }",
      "const buffer = new ArrayBuffer(1024, { maxByteLength: 2 ** 30 })\nfor (let size = 1 << 20; ; size *= 2) buffer.resize(size)",
    ];
    for (const code of bombs) {
      const vm = await shared.createVm({ limits: { memoryBytes: BOUND, stackBytes: 256 * 1024 }, host: recordingHost().host });
      try {
        const outcome = await vm.runCell(script(code), { timeLimitMs: 10_000 });
        assert.ok(outcome.error, `${code}: the cell failed`);
        assert.ok(/MemoryLimitError|RangeError|out of memory/.test(`${outcome.error.name}: ${outcome.error.message}`), `${code}: ${outcome.error.name}: ${outcome.error.message}`);
        const reserved = vm.reservedMemory();
        assert.ok(reserved !== undefined && reserved <= BOUND, `${code}: the VM held ${reserved} bytes, over its bound of ${BOUND}`);
      } finally {
        vm.dispose();
      }
    }
  });

  it("lets go of an idle VM whose memory grew, so the worker's memory falls back after a burst", () => {
    // In a process of its own: its RSS is the burst's alone.
    const workspaceModule = new URL("../workspace.ts", import.meta.url).href;
    const executorModule = new URL("./quickjs-executor.ts", import.meta.url).href;
    const script = `
      const { Workspace } = await import(${JSON.stringify(workspaceModule)});
      const { createQuickJsExecutor } = await import(${JSON.stringify(executorModule)});
      const MiB = 1024 * 1024;
      const executor = createQuickJsExecutor({ pool: { threads: 1 } });
      const open = () => Workspace.open({ executor, limits: { memoryBytes: 64 * MiB }, job: { id: "j", role: "r" }, tools: [], globals: {}, bindings: new Map() }, []);
      const warm = await open();
      await warm.runCell("1");
      warm.dispose();
      const rss = () => process.memoryUsage().rss;
      const before = rss();
      // The peak is sampled: on a loaded machine the first VMs may be let go before the last cell has run.
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
      const workspaces = await Promise.all(Array.from({ length: 6 }, open));
      await Promise.all(workspaces.map(async (workspace) => {
        const report = await workspace.runCell("const kept = 1\\n{ const parts = []\\nfor (let i = 0; i < 40; i++) parts.push(new Uint8Array(1 << 20).fill(i + 1)) }");
        if (report.error) throw new Error(report.error);
      }));
      clearInterval(sampler);
      peak = Math.max(peak, rss());
      const deadline = Date.now() + 20_000;
      while (rss() - before > 60 * MiB && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const after = rss();
      const again = (await workspaces[0].runCell("kept + 1")).console.map((entry) => entry.text);
      console.log(JSON.stringify({ grew: (peak - before) / MiB, above: (after - before) / MiB, again }));
      for (const workspace of workspaces) workspace.dispose();
      executor.close();
    `;
    // A file, not `--eval`: the sandbox threads inherit the process's options, and `--input-type` is refused there.
    const dir = mkdtempSync(join(tmpdir(), "statek-memory-burst-"));
    let output: string;
    try {
      writeFileSync(join(dir, "burst.mjs"), script);
      output = execFileSync(process.execPath, [join(dir, "burst.mjs")], { encoding: "utf8", timeout: 120_000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const { grew, above, again } = JSON.parse(output.trim().split("\n").at(-1)!) as { grew: number; above: number; again: string[] };
    assert.ok(grew > 150, `the burst grew the worker by ${grew.toFixed(0)} MiB`);
    assert.ok(above <= 60, `the worker's memory stayed ${above.toFixed(0)} MiB above where it was`);
    assert.deepEqual(again, ["2"], "the next cell runs in a VM rebuilt from the stored variables");
  });
});
