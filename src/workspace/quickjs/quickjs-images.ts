/**
 * @module
 * A sandbox thread's VM images (`quickjs-image.ts`), one per set of VM limits, each built once on first use: a
 * template VM is made new in a module instance of its own — never a pooled one, whose free memory would
 * still hold an earlier job's data — and its memory is copied before anything runs in it. The template is
 * then dropped, never pooled: it served no job, but nothing needs its memory.
 *
 * When an image cannot be built (the guest runtime fails to start within these limits) there is none: VMs are
 * made new, and the reason is reported then, as without images.
 */
import type { VmLimits } from "../executor.ts";
import { QuickJsImage } from "./quickjs-image.ts";
import { QuickJsSlot } from "./quickjs-slot.ts";
import { QuickJsVm } from "./quickjs-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES, type QuickJsWasm } from "./quickjs-wasm.ts";

/** Images kept at most; one set of limits is the common case, a handful is already unusual. */
const MAX_IMAGES = 4;

/** The key of a set of VM limits (images and ready VMs are kept by it). */
export function limitsKey(limits: VmLimits, invokeTimeMs: number): string {
  return `${limits.memoryBytes}:${limits.stackBytes}:${invokeTimeMs}`;
}

/** One thread's VM images. */
export class VmImages {
  readonly #images = new Map<string, Promise<QuickJsImage | undefined>>();
  readonly #wasm: Promise<QuickJsWasm>;
  readonly #breakAddress: Promise<number | undefined>;

  /** `breakAddress`: where the module keeps its heap's break, when the thread could tell (`quickjs-heap-break.ts`). */
  constructor(wasm: Promise<QuickJsWasm>, breakAddress: Promise<number | undefined>) {
    this.#wasm = wasm;
    this.#breakAddress = breakAddress;
  }

  /** The image for VMs with these limits, built now if there is none yet; undefined when there can be none. */
  image(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsImage | undefined> {
    const key = limitsKey(limits, invokeTimeMs);
    let image = this.#images.get(key);
    if (!image) {
      if (this.#images.size >= MAX_IMAGES) this.#images.delete(this.#images.keys().next().value!);
      image = this.#build(limits, invokeTimeMs).catch(() => undefined);
      this.#images.set(key, image);
    }
    return image;
  }

  async #build(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsImage | undefined> {
    const wasm = await this.#wasm;
    const breakAddress = await this.#breakAddress;
    const slot = await QuickJsSlot.create(wasm, limits.memoryBytes, QUICKJS_MIN_MEMORY_BYTES);
    const baseline = QuickJsImage.baseline(slot.memory);
    const template = QuickJsVm.create(slot, { ...limits }, invokeTimeMs, () => {});
    try {
      const image = template.captureImage(baseline, breakAddress);
      // Every new instance starts with this much memory; an image larger than that could not be loaded.
      return image.length <= QUICKJS_MIN_MEMORY_BYTES ? image : undefined;
    } finally {
      template.dispose();
    }
  }
}
