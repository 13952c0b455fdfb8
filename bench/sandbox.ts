/**
 * bench/sandbox: the cost of the sandbox boundary with the QuickJS executor —
 * the median host-call crossing (a no-op host method called from a cell, and a few other crossings for
 * comparison), VM creation and disposal (from an idle pooled slot and from a fresh module instance), the
 * memory an idle job VM holds, and the time to rehydrate a workspace of 50 stored variables.
 * Targets: crossing ≤ 3 µs median, rehydrate ≤ 5 ms.
 *
 * Run: `npm run bench -- sandbox` (or `node --expose-gc bench/sandbox.ts` for steadier memory figures).
 */
import type { VariableRow } from "../src/store/store.ts";
import { tool } from "../src/tools/tool.ts";
import { createQuickJsExecutor } from "../src/workspace/quickjs/quickjs-executor.ts";
import type { VmHost } from "../src/workspace/executor.ts";
import { Workspace, type WorkspaceOptions } from "../src/workspace/workspace.ts";

const executor = createQuickJsExecutor();

/** A host object as applications expose them: a class instance, so it crosses as a handle. */
class BenchTarget {
  value = 7;
  noop(): void {}
  add(a: number, b: number): number {
    return a + b;
  }
}
const gc = (globalThis as { gc?: () => void }).gc;

function options(globals: Record<string, unknown> = {}, extra: Partial<WorkspaceOptions> = {}): WorkspaceOptions {
  return { executor, job: { id: "bench", role: "bench" }, tools: [], globals, bindings: new Map(), limits: { maxHostCalls: 1_000_000 }, ...extra };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeCell(workspace: Workspace, code: string): Promise<number> {
  const started = performance.now();
  const report = await workspace.runCell(code);
  const elapsed = performance.now() - started;
  if (report.error) throw new Error(`bench cell failed: ${report.error}`);
  return elapsed;
}

/**
 * Median µs per crossing of each body: a cell making `calls` crossings minus the same loop without them.
 * The bodies are measured in turn, round after round, so a noisy neighbour skews them alike.
 */
async function crossingMicros(workspace: Workspace, bodies: string[], calls = 20_000, rounds = 15): Promise<number[]> {
  const samples = bodies.map(() => [] as number[]);
  for (const body of bodies) await timeCell(workspace, `for (let i = 0; i < 2000; i++) { ${body} }`);
  for (let round = 0; round < rounds; round++) {
    for (const [index, body] of bodies.entries()) {
      const empty = await timeCell(workspace, `for (let i = 0; i < ${calls}; i++) {}`);
      const full = await timeCell(workspace, `for (let i = 0; i < ${calls}; i++) { ${body} }`);
      samples[index]!.push(((full - empty) * 1000) / calls);
    }
  }
  return samples.map(median);
}

async function crossings(): Promise<void> {
  const target = new BenchTarget();
  const noop = tool({ name: "noop", description: "Does nothing.", run: () => undefined });
  const workspace = await Workspace.open(options({ target }, { tools: [noop] }), []);
  try {
    const [method, add, read, now, toolCall] = await crossingMicros(workspace, ["target.noop()", "target.add(i, 1)", "target.value", "Date.now()", "noop()"]);
    console.log(`  host-call crossing (no-op host method): ${method!.toFixed(2)} µs median (target ≤ 3 µs)`);
    console.log(`  method with two numbers and a result:   ${add!.toFixed(2)} µs`);
    console.log(`  property read:                          ${read!.toFixed(2)} µs`);
    console.log(`  Date.now() (host clock, recorded):      ${now!.toFixed(2)} µs`);
    console.log(`  no-op tool call (validation, record):   ${toolCall!.toFixed(2)} µs`);
  } finally {
    workspace.dispose();
  }
}

async function vmLifecycle(): Promise<void> {
  const host: VmHost = { receive: () => "", idle: async () => ({ end: "finished" }) };
  // Each way of making a VM on an executor (and so a sandbox pool) of its own, set up for it.
  let executor = createQuickJsExecutor();
  const limits = { memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 };
  const measure = async (rounds: number, idle: boolean) => {
    const create: number[] = [];
    const dispose: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // Idle time between jobs, in which the executor makes its next ready VM.
      if (idle) await new Promise((resolve) => setTimeout(resolve, 10));
      let started = performance.now();
      const vm = await executor.createVm({ limits, host });
      create.push(performance.now() - started);
      started = performance.now();
      vm.dispose();
      dispose.push(performance.now() - started);
    }
    return { create: median(create), dispose: median(dispose) };
  };
  const show = (label: string, figures: { create: number; dispose: number }) =>
    console.log(`  ${label}: creation ${figures.create.toFixed(2)} ms median, disposal ${figures.dispose.toFixed(3)} ms`);
  await measure(5, false);
  show("VM taken from the ready set (made ahead of time)", await measure(40, true));
  executor.close();
  executor = createQuickJsExecutor({ pool: { readyVms: 0 } });
  await measure(5, false);
  show("VM made on demand in a pooled module instance", await measure(40, false));
  executor.close();
  executor = createQuickJsExecutor({ pool: { readyVms: 0, slotPoolMaxIdle: 0 } });
  await measure(5, false);
  show("VM made on demand in a fresh module instance", await measure(20, false));
  executor.close();
}

function rss(): number {
  gc?.();
  return process.memoryUsage().rss;
}

async function idleMemory(): Promise<void> {
  const count = 50;
  const before = rss();
  const workspaces: Workspace[] = [];
  for (let i = 0; i < count; i++) {
    const workspace = await Workspace.open(options(), []);
    await workspace.runCell("const note = 'idle job'; const items = [1, 2, 3]");
    workspaces.push(workspace);
  }
  const after = rss();
  const memory = workspaces[0]!.memory();
  console.log(
    `  memory per idle job VM: ${((after - before) / count / 1024 / 1024).toFixed(2)} MiB RSS ` +
      `(guest heap ${((memory.usedBytes ?? 0) / 1024).toFixed(0)} KiB; WebAssembly memory reserved ${((memory.reservedBytes ?? 0) / 1024 / 1024).toFixed(0)} MiB, bound ${memory.limitBytes / 1024 / 1024} MiB)${gc ? "" : " — run with --expose-gc for a steadier figure"}`,
  );
  for (const workspace of workspaces) workspace.dispose();
}

async function rehydrate(): Promise<void> {
  const seed = await Workspace.open(options(), []);
  const lines = [];
  for (let i = 0; i < 50; i++) {
    switch (i % 5) {
      case 0: lines.push(`const n${i} = ${i} * 1.5`); break;
      case 1: lines.push(`const s${i} = "value ${i} ".repeat(4)`); break;
      case 2: lines.push(`const o${i} = { id: ${i}, tags: ["a", "b"], when: new Date(${i}), nested: { ok: true } }`); break;
      case 3: lines.push(`const a${i} = Array.from({ length: 20 }, (_, k) => k * ${i})`); break;
      case 4: lines.push(`function f${i}(x) { return x + ${i} }`); break;
    }
  }
  const report = await seed.runCell(lines.join("\n"));
  seed.dispose();
  const rows: VariableRow[] = report.put;
  if (rows.length !== 50) throw new Error(`expected 50 stored variables, got ${rows.length}`);
  const samples: number[] = [];
  for (let round = 0; round < 40; round++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    const workspace = await Workspace.open(options(), rows);
    samples.push(performance.now() - started);
    workspace.dispose();
  }
  console.log(`  rehydrate a workspace of 50 variables: ${median(samples.slice(5)).toFixed(2)} ms median (target ≤ 5 ms; a ready VM, provide and restore included)`);
}

export async function main(): Promise<void> {
  console.log("bench/sandbox (QuickJS executor, one module instance per VM, memory bound 64 MiB)");
  await crossings();
  await vmLifecycle();
  await idleMemory();
  await rehydrate();
}

if (import.meta.main) await main();
