/**
 * @module
 * Where the module keeps its heap's *break*: the end of the memory its allocator has taken with `sbrk`. The
 * allocator writes nothing above the break, so a slot that served a VM holds bytes of it only below its break;
 * reusing the slot then zeroes up to there rather than the whole memory (16 MiB or more, which also made every
 * page of every pooled slot resident).
 *
 * The break also says how much of a slot's memory its VMs ever touched (what stays resident while it is kept).
 *
 * The module is minified and exports no `sbrk`, so the word holding the break is found by probing a throwaway
 * instance once per thread (`quickjs-engine.ts`): it is the one word of the module's data that grows with each
 * allocation past the top of the heap and keeps its value when the memory is freed (this build never gives heap
 * back). When the probe finds no such word, or more than one, there is no address and slots are zeroed whole.
 */
import { instantiateQuickJs, type QuickJsWasm } from "./quickjs-wasm.ts";
import { wasmApi } from "./wasm-api.ts";

/** The module's data (where the word lives) is at the start of its memory: the probe reads this much of it. */
const DATA_BYTES = 1024 * 1024;
const PROBE_MEMORY_PAGES = 512; // 32 MiB: room for the probe's allocations without growing
const FIRST = 2 * 1024 * 1024;
const SECOND = 4 * 1024 * 1024;

/** The address of the word holding the heap's break, or undefined when it cannot be told (each thread probes once). */
export function heapBreakAddress(wasm: QuickJsWasm): Promise<number | undefined> {
  return probe(wasm).catch(() => undefined);
}

/** Reads the break a memory's allocator reached, from the word at `address`. */
export function readHeapBreak(heap: Uint8Array, address: number): number {
  return new DataView(heap.buffer, heap.byteOffset, heap.byteLength).getUint32(address, true);
}

async function probe(wasm: QuickJsWasm): Promise<number | undefined> {
  const memory = new wasmApi.Memory({ initial: PROBE_MEMORY_PAGES, maximum: PROBE_MEMORY_PAGES });
  const module = await instantiateQuickJs(wasm, memory);
  const words = () => Uint32Array.from(new Uint32Array(memory.buffer, 0, DATA_BYTES / 4));
  const before = words();
  const first = module._malloc(FIRST);
  const afterFirst = words();
  const second = module._malloc(SECOND);
  const afterSecond = words();
  if (first === 0 || second === 0) return undefined;
  module._free(second);
  module._free(first);
  const afterFree = words();
  const found: number[] = [];
  for (let index = 0; index < before.length; index++) {
    const grew = afterFirst[index]! - before[index]! >= FIRST / 2 && afterSecond[index]! - afterFirst[index]! >= SECOND / 2;
    const kept = afterFree[index] === afterSecond[index];
    // The break is past everything handed out, and inside the memory.
    const bounds = afterSecond[index]! >= second + SECOND && afterSecond[index]! <= memory.buffer.byteLength;
    if (grew && kept && bounds) found.push(index * 4);
  }
  return found.length === 1 ? found[0] : undefined;
}
