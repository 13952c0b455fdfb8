/**
 * @module
 * Idle slots kept for the next VM. Making a module instance costs a few milliseconds (instantiation, the
 * Emscripten glue, a new memory); a VM copied from an image into an idle instance costs ~1 ms, and overwrites
 * all of its memory (see `quickjs-image.ts`). A slot goes back to the pool only when its VM freed everything
 * cleanly and touched little memory: an idle slot keeps every page its VMs touched resident (WebAssembly memory
 * cannot give pages back), so a slot whose VM grew is dropped, and its memory goes back to the worker with the
 * instance (see {@link SlotPool.onDropped}).
 *
 * One pool per sandbox thread, keyed by memory bound.
 */
import { QuickJsSlot } from "./quickjs-slot.ts";
import { QUICKJS_MIN_MEMORY_BYTES, type QuickJsWasm } from "./quickjs-wasm.ts";

/** How a slot pool behaves. */
export interface SlotPoolOptions {
  /**
   * Idle slots kept per memory bound. 0 makes every VM a fresh module instance. An idle slot keeps the pages its
   * VMs touched (the image's ~1.2 MiB and what their cells used; reuse zeroes only those, see `quickjs-image.ts`).
   * Too few, and a worker with more active jobs than warm ones makes and drops instances all the time: each new
   * memory is external memory to V8, and the garbage collections it set off cost more than the steps (1,000
   * jobs round-robin: 4 idle slots per thread, 25% of VMs in new instances, 2 ms of GC threads per step;
   * 16: 5–10%, 0.4 ms). @default 16
   */
  maxIdle: number;
  /**
   * A slot whose VMs touched more memory than this is not kept (how far its heap's break reached, or all of its
   * memory when the break is not known): the pool never holds more than `maxIdle` times this per bound.
   * @default 8 MiB
   */
  maxReusedBytes: number;
}

/** The default {@link SlotPoolOptions}. */
export const DEFAULT_SLOT_POOL_OPTIONS: Readonly<SlotPoolOptions> = Object.freeze({ maxIdle: 16, maxReusedBytes: 8 * 1024 * 1024 });

/** Idle slots of one sandbox thread. */
export class SlotPool {
  readonly #options: SlotPoolOptions = { ...DEFAULT_SLOT_POOL_OPTIONS };
  readonly #idle = new Map<number, QuickJsSlot[]>();
  readonly #wasm: Promise<QuickJsWasm>;
  /** How much of a slot's memory its VMs touched (the thread knows where the heap's break is kept). */
  readonly #touched: (slot: QuickJsSlot) => number;
  /** Told when a slot that held `bytes` of memory is let go (the thread may ask V8 to collect it soon). */
  onDropped: ((bytes: number) => void) | undefined;

  /**
   * `touched` tells how much of a slot's memory its VMs touched; by default, how far its memory grew past the
   * size every instance starts with (what a thread that cannot tell where the heap's break is kept assumes).
   */
  constructor(wasm: Promise<QuickJsWasm>, touched: (slot: QuickJsSlot) => number = (slot) => slot.reservedBytes - QUICKJS_MIN_MEMORY_BYTES) {
    this.#wasm = wasm;
    this.#touched = touched;
  }

  /** Changes how the pool behaves; idle slots beyond the new bounds are dropped. */
  configure(settings: Partial<SlotPoolOptions>): void {
    Object.assign(this.#options, settings);
    for (const slots of this.#idle.values()) {
      for (const slot of slots.splice(this.#options.maxIdle)) this.#drop(slot);
      for (let index = slots.length - 1; index >= 0; index--) {
        if (this.#touched(slots[index]!) > this.#options.maxReusedBytes) this.#drop(slots.splice(index, 1)[0]!);
      }
    }
  }

  /**
   * A slot with memory bound `limitBytes`: an idle one, or a new instance. `forImage` says the VM will be copied
   * from an image; otherwise a slot whose last engine was left unfreed cannot serve (see `abandonEngine`).
   */
  async acquire(limitBytes: number, forImage = false): Promise<QuickJsSlot> {
    const slots = this.#idle.get(limitBytes);
    const index = slots ? slots.findLastIndex((slot) => forImage || !slot.needsImage) : -1;
    if (index !== -1) return slots!.splice(index, 1)[0]!;
    return QuickJsSlot.create(await this.#wasm, limitBytes, QUICKJS_MIN_MEMORY_BYTES);
  }

  /** Takes back a slot whose VM is gone; it is kept only if it is healthy and touched little memory. */
  release(slot: QuickJsSlot): void {
    slot.attach(undefined);
    let slots = this.#idle.get(slot.limitBytes);
    // Released twice, a slot would serve two VMs at once: it goes into the pool once.
    if (slots?.includes(slot)) return;
    if (slot.broken || this.#touched(slot) > this.#options.maxReusedBytes || (slots?.length ?? 0) >= this.#options.maxIdle) {
      this.#drop(slot);
      return;
    }
    if (!slots) this.#idle.set(slot.limitBytes, (slots = []));
    slots.push(slot);
  }

  /** Idle slots held now (all bounds), for measurements. */
  get idleCount(): number {
    let count = 0;
    for (const slots of this.#idle.values()) count += slots.length;
    return count;
  }

  #drop(slot: QuickJsSlot): void {
    this.onDropped?.(slot.reservedBytes);
  }
}
