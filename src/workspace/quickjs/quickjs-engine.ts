/**
 * @module
 * The QuickJS parts of one sandbox thread: the compiled module and its loader, where the module keeps its heap's
 * break, the VM images, the idle slots and the VMs made ahead of time. A thread makes one, with the settings its
 * pool gives it; nothing of it is shared with another thread (or another pool).
 *
 * Memory a dropped slot held goes back to the system only when V8 collects the instance; an idle thread may not
 * collect for many seconds, so once slots holding {@link COLLECT_AFTER_BYTES} or more were let go the engine asks
 * for a collection (`collect`, given by the thread) soon after.
 */
import type { VmLimits } from "../executor.ts";
import type { ThreadSettings } from "../sandbox/thread-protocol.ts";
import { heapBreakAddress, readHeapBreak } from "./quickjs-heap-break.ts";
import { VmImages } from "./quickjs-images.ts";
import { ReadyVms } from "./quickjs-ready-vms.ts";
import type { QuickJsSlot } from "./quickjs-slot.ts";
import { SlotPool } from "./quickjs-slot-pool.ts";
import type { QuickJsVm } from "./quickjs-vm.ts";
import { loadQuickJsWasm, QUICKJS_MIN_MEMORY_BYTES } from "./quickjs-wasm.ts";
import type { WasmModule } from "./wasm-api.ts";

/** Memory let go since the last collection past which the engine asks for one. */
export const COLLECT_AFTER_BYTES = 32 * 1024 * 1024;
/** How soon after that it asks (slots dropped together are collected together), and how often at most. */
const COLLECT_DELAY_MS = 50;
const COLLECT_EVERY_MS = 1_000;

/** What a thread's engine is made with. */
export interface QuickJsEngineOptions {
  /** The module compiled by the thread's pool; compiled here when absent. */
  compiled?: WasmModule;
  settings?: ThreadSettings;
  /** Runs a garbage collection of the thread's heap (returns the memory of slots let go). */
  collect?: () => Promise<void>;
}

/** The QuickJS parts of one sandbox thread. */
export class QuickJsEngine {
  readonly slots: SlotPool;
  readonly images: VmImages;
  readonly ready: ReadyVms;
  #breakAddress: number | undefined;
  readonly #collect: (() => Promise<void>) | undefined;
  #dropped = 0;
  #collecting: NodeJS.Timeout | undefined;
  #lastCollect = 0;

  constructor(options: QuickJsEngineOptions = {}) {
    const wasm = loadQuickJsWasm(options.compiled);
    const breakAddress = wasm.then((loaded) => heapBreakAddress(loaded));
    void breakAddress.then((address) => (this.#breakAddress = address), () => {});
    this.slots = new SlotPool(wasm, (slot) => this.#touchedBytes(slot));
    this.images = new VmImages(wasm, breakAddress);
    this.ready = new ReadyVms(this.images, this.slots);
    this.#collect = options.collect;
    this.slots.onDropped = (bytes) => this.#noteDropped(bytes);
    if (options.settings) this.configure(options.settings);
  }

  /** Applies the pool's settings (slot pool, ready VMs). */
  configure(settings: ThreadSettings): void {
    if (settings.slotPoolMaxIdle !== undefined || settings.slotPoolMaxReusedBytes !== undefined) {
      this.slots.configure({
        ...(settings.slotPoolMaxIdle !== undefined ? { maxIdle: settings.slotPoolMaxIdle } : {}),
        ...(settings.slotPoolMaxReusedBytes !== undefined ? { maxReusedBytes: settings.slotPoolMaxReusedBytes } : {}),
      });
    }
    if (settings.readyVms !== undefined) this.ready.configure(settings.readyVms);
  }

  /** A VM with these limits (a ready one when there is one). */
  takeVm(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsVm> {
    return this.ready.take(limits, invokeTimeMs);
  }

  // How far the slot's heap reached (the pages below it may be resident); without the break's address, how far
  // its memory grew past what every instance starts with.
  #touchedBytes(slot: QuickJsSlot): number {
    if (this.#breakAddress === undefined) return slot.reservedBytes - QUICKJS_MIN_MEMORY_BYTES;
    return Math.min(readHeapBreak(new Uint8Array(slot.memory.buffer), this.#breakAddress), slot.reservedBytes);
  }

  #noteDropped(bytes: number): void {
    this.#dropped += bytes;
    if (!this.#collect || this.#collecting || this.#dropped < COLLECT_AFTER_BYTES) return;
    const delay = Math.max(COLLECT_DELAY_MS, this.#lastCollect + COLLECT_EVERY_MS - performance.now());
    this.#collecting = setTimeout(() => {
      this.#dropped = 0;
      this.#lastCollect = performance.now();
      void this.#collect!().catch(() => {}).finally(() => (this.#collecting = undefined));
    }, delay);
    this.#collecting.unref();
  }
}
