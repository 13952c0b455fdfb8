import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileCell } from "../cell-compiler.ts";
import type { CellOutcome, VmLimits } from "../executor.ts";
import { readHeapBreak } from "./quickjs-heap-break.ts";
import { QuickJsImage } from "./quickjs-image.ts";
import { QuickJsEngine } from "./quickjs-engine.ts";
import { QuickJsSlot } from "./quickjs-slot.ts";
import { QuickJsVm } from "./quickjs-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES, loadQuickJsWasm } from "./quickjs-wasm.ts";

const engine = new QuickJsEngine();
const wasm = loadQuickJsWasm();

const LIMITS: VmLimits = { memoryBytes: 48 * 1024 * 1024, stackBytes: 256 * 1024 };
const INVOKE_MS = 5_000;

function script(code: string): string {
  const compiled = compileCell(code);
  assert.equal(compiled.kind, "script");
  return (compiled as { script: string }).script;
}

/** A VM in `slot`, from the image when `image` is given, connected to a host that records what it prints. */
function vmIn(slot: QuickJsSlot, image: QuickJsImage | undefined, limits: VmLimits = LIMITS): { vm: QuickJsVm; printed: string[] } {
  const printed: string[] = [];
  const vm = QuickJsVm.create(slot, { ...limits }, INVOKE_MS, () => {}, image);
  // A print carries its stream and its arguments as JSON.
  vm.connect((op, args) => (op === "print" ? (printed.push((JSON.parse(args[1]!) as unknown[]).join(" ")), "") : ""), () => false, () => {});
  return { vm, printed };
}

/** Runs a cell of synchronous code to its end. */
function run(vm: QuickJsVm, code: string, timeLimitMs = 2_000): CellOutcome {
  const slice = vm.start(script(code), timeLimitMs, 60_000, [], undefined);
  const over = slice.state === "over" ? slice : vm.finish("finished");
  assert.equal(over.state, "over");
  const { cpuMs: _cpu, ...outcome } = over.outcome!;
  return outcome;
}

async function newSlot(limitBytes = LIMITS.memoryBytes): Promise<QuickJsSlot> {
  return QuickJsSlot.create(await wasm, limitBytes, QUICKJS_MIN_MEMORY_BYTES);
}

async function image(): Promise<QuickJsImage> {
  const built = await engine.images.image(LIMITS, INVOKE_MS);
  assert.ok(built, "this thread has a VM image");
  return built;
}

/** True when `text` occurs (as UTF-8) anywhere in the slot's memory. */
function memoryHolds(slot: QuickJsSlot, text: string): boolean {
  return Buffer.from(slot.memory.buffer).includes(Buffer.from(text));
}

const POLLUTE = `
  globalThis.leaked = "MARKER-global-7f3a";
  globalThis.registered = Symbol.for("MARKER-symbol-7f3a");
  globalThis.pending = new Promise(() => {}).then(() => "MARKER-promise-7f3a");
  globalThis.kept = Array.from({ length: 2000 }, (_, i) => "MARKER-heap-7f3a-" + i);
  print("polluted")
`;

const INSPECT = `
  const found = [typeof globalThis.leaked, typeof globalThis.registered, typeof globalThis.kept, Symbol.keyFor(Symbol.for("probe"))];
  print(found.join(","))
`;

describe("quickjs VM image", () => {
  it("is small next to the memory it stands for, and is built from a VM that ran nothing", async () => {
    const built = await image();
    assert.ok(built.length <= QUICKJS_MIN_MEMORY_BYTES, `the image fits a new instance (${built.length} bytes)`);
    assert.ok(built.storedBytes < built.length / 2, `only non-zero pages are kept (${built.storedBytes} of ${built.length})`);
    const slot = await newSlot();
    const baseline = QuickJsImage.baseline(slot.memory);
    const { vm } = vmIn(slot, undefined);
    run(vm, "1");
    assert.throws(() => vm.captureImage(baseline), /only from a new VM that has run nothing/);
    vm.dispose();
    const reused = await newSlot();
    vmIn(reused, undefined).vm.dispose();
    const second = vmIn(reused, undefined).vm;
    assert.throws(() => second.captureImage(baseline), /only from a new VM that has run nothing/, "nor a new VM in a slot that served one");
    second.dispose();
    const measured = vmIn(await newSlot(), undefined).vm;
    measured.memory();
    assert.throws(() => measured.captureImage(baseline), /only from a new VM that has run nothing/, "nor one whose memory was measured");
    measured.dispose();
    const fromImage = vmIn(await newSlot(), built).vm;
    assert.throws(() => fromImage.captureImage(baseline), /only from a new VM that has run nothing/, "an image VM gives none either");
    fromImage.dispose();
  });

  it("gives VMs that work and do not see each other's globals", async () => {
    const built = await image();
    const first = vmIn(await newSlot(), built);
    const second = vmIn(await newSlot(), built);
    try {
      assert.deepEqual(run(first.vm, POLLUTE), {});
      assert.deepEqual(first.printed, ["polluted"]);
      assert.deepEqual(run(second.vm, INSPECT), {});
      assert.deepEqual(second.printed, ["undefined,undefined,undefined,probe"]);
      assert.deepEqual(run(first.vm, INSPECT), {});
      assert.deepEqual(first.printed.at(-1), "string,symbol,object,probe", "the polluting VM keeps its own changes");
    } finally {
      first.vm.dispose();
      second.vm.dispose();
    }
  });

  it("overwrites everything a polluting job left in a slot, whose engine it leaves unfreed for the next image", async () => {
    const built = await image();
    const slot = await newSlot();
    const first = vmIn(slot, built);
    assert.deepEqual(run(first.vm, POLLUTE), {});
    assert.ok(memoryHolds(slot, "MARKER-heap-7f3a-1999"), "the job's data is in the slot's memory");
    first.vm.dispose();
    assert.equal(slot.broken, false, "the slot may serve again");
    assert.equal(slot.needsImage, true, "the engine was left as it was");
    assert.throws(() => QuickJsVm.create(slot, { ...LIMITS }, INVOKE_MS, () => {}), /only an image can be loaded/, "a new engine next to the old one is refused");
    assert.ok(memoryHolds(slot, "MARKER-heap-7f3a"), "the bytes are still there until the next image");
    const second = vmIn(slot, built);
    try {
      for (const marker of ["MARKER-global-7f3a", "MARKER-symbol-7f3a", "MARKER-heap-7f3a", "MARKER-promise-7f3a"]) {
        assert.equal(memoryHolds(slot, marker), false, `${marker} is gone from the slot's memory`);
      }
      assert.deepEqual(run(second.vm, INSPECT), {});
      assert.deepEqual(second.printed, ["undefined,undefined,undefined,probe"]);
    } finally {
      second.vm.dispose();
    }
  });

  it("works in a slot whose memory grew large, and clears all of it", async () => {
    const built = await image();
    const slot = await newSlot();
    const first = vmIn(slot, built);
    assert.deepEqual(run(first.vm, `globalThis.big = "MARKER-big-7f3a".repeat(1_700_000); print(big.length)`), {});
    const grown = slot.reservedBytes;
    assert.ok(grown >= 28 * 1024 * 1024, `the slot's memory grew (${grown} bytes)`);
    first.vm.dispose();
    const second = vmIn(slot, built);
    try {
      assert.equal(memoryHolds(slot, "MARKER-big-7f3a"), false, "nothing of the large string remains");
      assert.deepEqual(run(second.vm, `globalThis.list = Array.from({ length: 50_000 }, (_, i) => ({ i })); print(typeof big, list.length)`), {});
      assert.deepEqual(second.printed, ["undefined 50000"]);
    } finally {
      second.vm.dispose();
    }
  });

  it("zeroes a reused slot up to the earlier VM's heap break, and all of it when the break cannot be read", async () => {
    const built = await image();
    assert.notEqual(built.breakAddress, undefined, "the probe found where this build keeps its heap break");
    const address = built.breakAddress!;
    const slot = await newSlot();
    const heap = () => new Uint8Array(slot.memory.buffer);
    const first = vmIn(slot, built);
    const breakBefore = readHeapBreak(heap(), address);
    assert.deepEqual(run(first.vm, `globalThis.big = "MARKER-break-7f3a".repeat(200_000)`), {});
    const breakAfter = readHeapBreak(heap(), address);
    assert.ok(breakAfter > breakBefore + 3_000_000, `the break moved with the allocation (${breakBefore} → ${breakAfter})`);
    first.vm.dispose();
    // Bytes above the break were never the engine's: reuse leaves those pages untouched (not made resident).
    heap().set(Buffer.from("ABOVE-THE-BREAK"), slot.memory.buffer.byteLength - 4096);
    // A page the image holds as zero (most of the stack) may hold anything after a VM: it is zeroed.
    // (Found in a new slot just given the image: there, a page is zero where the image holds it as zero.)
    const probeSlot = await newSlot();
    const probe = vmIn(probeSlot, built).vm;
    const probed = Buffer.from(probeSlot.memory.buffer);
    let zeroPage = -1;
    for (let page = 65536; page + 4096 <= built.length && zeroPage === -1; page += 4096) {
      if (probed.subarray(page, page + 4096).equals(Buffer.alloc(4096))) zeroPage = page;
    }
    probe.dispose();
    assert.ok(zeroPage > 0, "the image holds zero pages");
    heap().set(Buffer.from("IN-A-ZERO-PAGE"), zeroPage + 100);
    const second = vmIn(slot, built);
    assert.equal(memoryHolds(slot, "MARKER-break-7f3a"), false, "what the VM allocated below its break is gone");
    assert.equal(memoryHolds(slot, "IN-A-ZERO-PAGE"), false, "what a VM left in a page the image holds as zero is gone");
    assert.equal(memoryHolds(slot, "ABOVE-THE-BREAK"), true, "the memory above the break was left alone");
    assert.deepEqual(run(second.vm, `globalThis.again = "MARKER-again-7f3a".repeat(1_000)`), {});
    second.vm.dispose();
    // A break word the memory cannot hold is not believed: everything above the image is zeroed.
    new DataView(slot.memory.buffer).setUint32(address, 0xffff_fff0, true);
    const third = vmIn(slot, built);
    try {
      assert.equal(memoryHolds(slot, "ABOVE-THE-BREAK"), false, "a corrupt break zeroes the whole memory");
      assert.equal(memoryHolds(slot, "MARKER-again-7f3a"), false);
      assert.deepEqual(run(third.vm, `print(typeof big, typeof again)`), {});
      assert.deepEqual(third.printed, ["undefined undefined"]);
    } finally {
      third.vm.dispose();
    }
  });

  it("stops deep recursion at the VM's own stack bound, at the same depth as in a new VM", async () => {
    const built = await image();
    const depths: number[] = [];
    // The image was made with a 256 KiB stack; these VMs have 64 KiB, which their engine must use instead.
    for (const source of [undefined, built]) {
      const stack = vmIn(await newSlot(), source, { ...LIMITS, stackBytes: 64 * 1024 });
      try {
        const outcome = run(stack.vm, `let depth = 0; function down() { depth++; down() } try { down() } catch (e) { print(e.name, depth) }`);
        assert.deepEqual(outcome, {});
        const [name, depth] = stack.printed[0]!.split(" ");
        assert.equal(name, "RangeError");
        depths.push(Number(depth));
      } finally {
        stack.vm.dispose();
      }
    }
    assert.equal(depths[1], depths[0], "the same depth from the image as new");
    // With 256 KiB the recursion goes about four times as deep (~1,500 frames).
    assert.ok(depths[0]! > 100 && depths[0]! < 800, `stopped at depth ${depths[0]}`);
  });

  for (const source of ["new", "image"] as const) {
    it(`holds the memory and time limits in a VM made ${source === "new" ? "new" : "from the image"}`, async () => {
      const built = source === "image" ? await image() : undefined;
      const memory = vmIn(await newSlot(), built);
      try {
        const outcome = run(memory.vm, `const chunks = []; while (true) chunks.push(new Array(100_000).fill(1.5))`);
        assert.equal(outcome.limit, "memory");
        assert.equal(outcome.error?.name, "MemoryLimitError");
      } finally {
        memory.vm.dispose();
      }
      const time = vmIn(await newSlot(), built);
      try {
        assert.deepEqual(run(time.vm, `let n = 0; for (let i = 0; i < 2_000_000; i++) n += i; print(n)`, 30_000), {}, "work within the limit is not stopped");
        assert.deepEqual(time.printed, [String((2_000_000 * 1_999_999) / 2)]);
        const started = performance.now();
        const outcome = run(time.vm, `while (true) {}`, 150);
        assert.equal(outcome.error?.name, "TimeoutError");
        assert.ok(performance.now() - started < 5_000, "the interrupt handler stopped the loop");
      } finally {
        time.vm.dispose();
      }
    });
  }
});
