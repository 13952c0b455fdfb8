/**
 * @module
 * A memory image of a bootstrapped VM: the linear memory of a module instance in which a runtime and
 * context were made and the guest runtime was installed, and nothing else ran. Every instance of the
 * QuickJS-NG module lays out its memory identically and keeps all of the engine's state in that memory (its
 * one mutable WebAssembly global, the stack pointer, is back at its initial value between calls, and its
 * function table never changes), so copying the image into another instance's memory gives that instance
 * the same engine, at the same addresses, for the cost of a memory copy instead of compiling the guest
 * runtime again (~1 ms against ~17 ms).
 *
 * An image is stored as runs of 4 KiB pages. Pages the image holds as zero are written only where the
 * target may hold something else: a memory that served a VM before, or the pages a new instance writes
 * when it starts (its *baseline*). A new instance's untouched pages are left alone, so they cost the
 * worker no memory until the guest uses them. In a memory that served a VM, a block the image holds as zero
 * is zeroed only when it is not zero already (most of the stack never is touched), and above the image only
 * what lies below the earlier VM's heap break can hold anything (see `quickjs-heap-break.ts`): so reusing a
 * slot neither zeroes its whole memory nor makes its untouched pages resident.
 */
import { Buffer } from "node:buffer";
import { readHeapBreak } from "./quickjs-heap-break.ts";
import type { WasmMemory } from "./wasm-api.ts";

const PAGE = 4096;
const COPY = 0;
const ZERO_ALWAYS = 1;
const ZERO_IF_USED = 2;
type PageKind = typeof COPY | typeof ZERO_ALWAYS | typeof ZERO_IF_USED;

/** Where the image's engine objects live in its memory. */
export interface EnginePointers {
  /** The `JSRuntime`. */
  readonly runtime: number;
  /** The `JSContext`. */
  readonly context: number;
  /** The boxed `JSValue` holding the guest runtime's entry points. */
  readonly entries: number;
}

/** What is in one run of pages. */
type Run =
  | { readonly start: number; readonly kind: "bytes"; readonly bytes: Uint8Array }
  /** Zero in the image; `always` when a new instance's baseline is not zero there. */
  | { readonly start: number; readonly end: number; readonly kind: "zero"; readonly always: boolean };

/** Which pages of a new instance's memory are not zero (see {@link QuickJsImage.capture}). */
export type Baseline = Uint8Array;

/** An immutable copy of a bootstrapped VM's memory. */
export class QuickJsImage {
  /** Bytes covered by the image; the memory above them is zero in it. */
  readonly length: number;
  readonly pointers: EnginePointers;
  readonly #runs: readonly Run[];
  /** The guest heap in use in a VM fresh from the image (measured by the first one; see `QuickJsVm`). */
  usedBytes: number | undefined;
  /** The address of the word holding the heap's break, when it was found and the image agrees with it. */
  readonly breakAddress: number | undefined;

  private constructor(length: number, runs: readonly Run[], pointers: EnginePointers, breakAddress: number | undefined) {
    this.length = length;
    this.#runs = runs;
    this.pointers = pointers;
    this.breakAddress = breakAddress;
  }

  /**
   * The pages of a new instance's memory that hold something: taken from an instance before any engine
   * work ran in it. Every instance starts with the same bytes (the module's data and its constructors).
   */
  static baseline(memory: WasmMemory): Baseline {
    return nonZeroPages(new Uint8Array(memory.buffer));
  }

  /**
   * Copies `memory` now; `baseline` is the same instance's {@link baseline} from before it was used.
   * `breakAddress` is where the heap's break is kept (`heapBreakAddress`), if known: it is kept only if the
   * memory agrees, every non-zero page lying below the break it holds.
   */
  static capture(memory: WasmMemory, baseline: Baseline, pointers: EnginePointers, breakAddress?: number): QuickJsImage {
    const heap = new Uint8Array(memory.buffer);
    const pages = nonZeroPages(heap);
    // The image ends after its last non-zero page, or the baseline's (which it must zero in a new instance).
    const length = Math.min(Math.max(pages.lastIndexOf(1), baseline.lastIndexOf(1)) + 1, pages.length) * PAGE;
    const heapBreak = breakAddress === undefined ? undefined : readHeapBreak(heap, breakAddress);
    const breakHolds = heapBreak !== undefined && heapBreak <= heap.length && pages.lastIndexOf(1) * PAGE < heapBreak;
    // Each page is copied, zeroed always, or zeroed only in a used memory; neighbours of one kind form a run.
    const runs: Run[] = [];
    let runStart = 0;
    let runKind: PageKind | undefined;
    const close = (end: number) => {
      if (runKind === COPY) runs.push({ start: runStart, kind: "bytes", bytes: heap.slice(runStart, end) });
      else if (runKind !== undefined) runs.push({ start: runStart, end, kind: "zero", always: runKind === ZERO_ALWAYS });
    };
    for (let start = 0; start < length; start += PAGE) {
      const kind = pages[start / PAGE] === 1 ? COPY : baseline[start / PAGE] === 1 ? ZERO_ALWAYS : ZERO_IF_USED;
      if (kind === runKind) continue;
      close(start);
      runStart = start;
      runKind = kind;
    }
    close(length);
    return new QuickJsImage(length, runs, pointers, breakHolds ? breakAddress : undefined);
  }

  /** Bytes the image keeps in memory (its non-zero pages). */
  get storedBytes(): number {
    let bytes = 0;
    for (const run of this.#runs) if (run.kind === "bytes") bytes += run.bytes.length;
    return bytes;
  }

  /**
   * Makes `memory` the image. `used` says the memory served a VM before: then every byte of it is
   * overwritten — the image's, and zero above them — so nothing of the earlier VM remains.
   */
  applyTo(memory: WasmMemory, used: boolean): void {
    const heap = new Uint8Array(memory.buffer);
    if (heap.length < this.length) throw new Error(`the memory (${heap.length} bytes) is smaller than the VM image (${this.length} bytes)`);
    // Read before the image overwrites it: how far the earlier VM's heap reached (a value past the memory's end
    // zeroes all of it: `fill` stops at the end).
    const end = used && this.breakAddress !== undefined ? readHeapBreak(heap, this.breakAddress) : heap.length;
    for (const run of this.#runs) {
      if (run.kind === "bytes") heap.set(run.bytes, run.start);
      else if (run.always) heap.fill(0, run.start, run.end);
      else if (used) zeroWhereNot(heap, run.start, run.end);
    }
    if (used) heap.fill(0, this.length, end);
  }
}

const BLOCK = 16 * PAGE;
const ZERO_BLOCK = Buffer.alloc(BLOCK);

/**
 * Zeroes the blocks of `heap[start, end)` that are not zero. Reading a page the instance never touched costs no
 * memory (the system maps its one zero page), where writing it would make it resident.
 */
function zeroWhereNot(heap: Uint8Array, start: number, end: number): void {
  for (let block = start; block < end; block += BLOCK) {
    const blockEnd = Math.min(block + BLOCK, end);
    if (!Buffer.from(heap.buffer, heap.byteOffset + block, blockEnd - block).equals(ZERO_BLOCK.subarray(0, blockEnd - block))) heap.fill(0, block, blockEnd);
  }
}

/** 1 for each page of `heap` that holds a non-zero byte. Native comparisons, a block of pages at a time. */
function nonZeroPages(heap: Uint8Array): Uint8Array {
  const pages = new Uint8Array(Math.ceil(heap.length / PAGE));
  const zero = (start: number, end: number) => Buffer.from(heap.buffer, heap.byteOffset + start, end - start).equals(ZERO_BLOCK.subarray(0, end - start));
  for (let block = 0; block < heap.length; block += BLOCK) {
    const blockEnd = Math.min(block + BLOCK, heap.length);
    if (zero(block, blockEnd)) continue;
    for (let start = block; start < blockEnd; start += PAGE) pages[start / PAGE] = zero(start, Math.min(start + PAGE, blockEnd)) ? 0 : 1;
  }
  return pages;
}
