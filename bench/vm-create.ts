/**
 * bench/vm-create: what making one QuickJS VM costs on a sandbox thread, measured in this thread with the
 * thread's own parts — made new (QuickJS compiles the guest runtime) against copied from
 * the thread's memory image of a bootstrapped VM, each in a pooled module instance that served a VM before
 * and in a fresh one; and disposal. The image is built once per thread; its build time is shown too.
 * Figures are medians; on a loaded machine quote them with the load average.
 *
 * Run: `npm run bench -- vm-create`.
 */
import { loadavg } from "node:os";
import type { VmLimits } from "../src/workspace/executor.ts";
import type { QuickJsImage } from "../src/workspace/quickjs/quickjs-image.ts";
import { QuickJsEngine } from "../src/workspace/quickjs/quickjs-engine.ts";
import { QuickJsSlot } from "../src/workspace/quickjs/quickjs-slot.ts";
import { QuickJsVm } from "../src/workspace/quickjs/quickjs-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES, loadQuickJsWasm } from "../src/workspace/quickjs/quickjs-wasm.ts";

const LIMITS: VmLimits = { memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 };
const INVOKE_MS = 5_000;
const ROUNDS = 40;
/** The parts a sandbox thread has, made here. */
const engine = new QuickJsEngine();
const releaseSlot = (slot: QuickJsSlot) => engine.slots.release(slot);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Creation and disposal medians over `ROUNDS` VMs, each in a slot from `slot()`. */
async function measure(slot: () => Promise<QuickJsSlot>, image: QuickJsImage | undefined): Promise<{ create: number; dispose: number }> {
  const create: number[] = [];
  const dispose: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const target = await slot();
    let started = performance.now();
    const vm = QuickJsVm.create(target, LIMITS, INVOKE_MS, releaseSlot, image);
    create.push(performance.now() - started);
    // The VM answers before it is counted: one entry call, as a workspace's first restore makes.
    vm.connect(() => "", () => false, () => {}).invoke("begin", []);
    started = performance.now();
    vm.dispose();
    dispose.push(performance.now() - started);
  }
  return { create: median(create), dispose: median(dispose) };
}

/** Runs the benchmark and prints its figures. */
export async function main(): Promise<void> {
  console.log(`bench/vm-create (load average ${loadavg()[0]!.toFixed(2)})`);
  const wasm = await loadQuickJsWasm();
  const started = performance.now();
  const image = await engine.images.image(LIMITS, INVOKE_MS);
  const built = performance.now() - started;
  if (!image) throw new Error("no VM image could be built");
  console.log(`  image: built in ${built.toFixed(1)} ms; covers ${(image.length / 1024 / 1024).toFixed(2)} MiB, keeps ${(image.storedBytes / 1024 / 1024).toFixed(2)} MiB`);
  const pooled = () => engine.slots.acquire(LIMITS.memoryBytes);
  const fresh = () => QuickJsSlot.create(wasm, LIMITS.memoryBytes, QUICKJS_MIN_MEMORY_BYTES);
  await measure(pooled, image);
  const rows: Array<[string, () => Promise<QuickJsSlot>, QuickJsImage | undefined]> = [
    ["new, in a pooled instance      ", pooled, undefined],
    ["from image, in a pooled instance", pooled, image],
    ["new, in a fresh instance       ", fresh, undefined],
    ["from image, in a fresh instance ", fresh, image],
  ];
  for (const [label, slot, source] of rows) {
    const figures = await measure(slot, source);
    console.log(`  VM ${label}: creation ${figures.create.toFixed(2)} ms median, disposal ${figures.dispose.toFixed(2)} ms (instance not counted)`);
  }
}

if (import.meta.main) await main();
