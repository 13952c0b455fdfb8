/**
 * @module
 * Idle slots kept for the next VM. Making a module instance costs a few milliseconds (instantiation, the
 * Emscripten glue, a new memory); a VM copied from an image into an idle instance costs ~1 ms, and overwrites
 * all of its memory (see `quickjs-image.ts`). A slot goes back to the pool only when its VM freed everything
 * cleanly and its memory stayed small, so a VM that grew large or broke the engine gives its memory back to
 * the worker with the instance.
 *
 * The pool is process-wide and keyed by memory bound, so every executor with the same limits shares it.
 */
import { QuickJsSlot } from "./quickjs-slot.ts";
import { QUICKJS_MIN_MEMORY_BYTES, loadQuickJsWasm } from "./quickjs-wasm.ts";

/** How the process-wide pool behaves. */
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
  /** A slot whose memory grew past this is not reused. @default 32 MiB */
  maxReusedBytes: number;
}

const options: SlotPoolOptions = { maxIdle: 16, maxReusedBytes: 32 * 1024 * 1024 };
const idle = new Map<number, QuickJsSlot[]>();

/** Changes how the process-wide slot pool behaves; idle slots beyond the new bound are dropped. */
export function configureSlotPool(settings: Partial<SlotPoolOptions>): void {
  Object.assign(options, settings);
  for (const slots of idle.values()) slots.splice(options.maxIdle);
}

/**
 * A slot with memory bound `limitBytes`: an idle one, or a new instance. `forImage` says the VM will be copied
 * from an image; otherwise a slot whose last engine was left unfreed cannot serve (see `abandonEngine`).
 */
export async function acquireSlot(limitBytes: number, forImage = false): Promise<QuickJsSlot> {
  const slots = idle.get(limitBytes);
  const index = slots ? slots.findLastIndex((slot) => forImage || !slot.needsImage) : -1;
  if (index !== -1) return slots!.splice(index, 1)[0]!;
  return QuickJsSlot.create(await loadQuickJsWasm(), limitBytes, QUICKJS_MIN_MEMORY_BYTES);
}

/** Returns a slot whose VM is gone; it is kept only if it is healthy and small. */
export function releaseSlot(slot: QuickJsSlot): void {
  slot.attach(undefined);
  if (slot.broken || slot.reservedBytes > options.maxReusedBytes) return;
  let slots = idle.get(slot.limitBytes);
  if (!slots) idle.set(slot.limitBytes, (slots = []));
  // Released twice, a slot would serve two VMs at once: it goes into the pool once.
  if (slots.length < options.maxIdle && !slots.includes(slot)) slots.push(slot);
}

/** Idle slots held now (all bounds), for measurements. */
export function idleSlotCount(): number {
  let count = 0;
  for (const slots of idle.values()) count += slots.length;
  return count;
}
