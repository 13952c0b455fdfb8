/**
 * @module
 * This thread's VM images (`quickjs-image.ts`), one per set of VM limits, each built once on first use: a
 * template VM is made new in a module instance of its own — never a pooled one, whose free memory would
 * still hold an earlier job's data — and its memory is copied before anything runs in it. The template is
 * then dropped, never pooled: it served no job, but nothing needs its memory.
 *
 * The set is process-wide (per sandbox thread) and keyed like the ready VMs. When an image cannot be built
 * (the guest runtime fails to start within these limits) there is none: VMs are made new, and the reason
 * is reported then, as without images.
 */
import type { VmLimits } from "../executor.ts";
import { heapBreakAddress } from "./quickjs-heap-break.ts";
import { QuickJsImage } from "./quickjs-image.ts";
import { QuickJsSlot } from "./quickjs-slot.ts";
import { QuickJsVm } from "./quickjs-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES, loadQuickJsWasm } from "./quickjs-wasm.ts";

/** Images kept at most; one set of limits is the common case, a handful is already unusual. */
const MAX_IMAGES = 4;

const images = new Map<string, Promise<QuickJsImage | undefined>>();

/** The image for VMs with these limits, built now if this thread has none; undefined when there is none. */
export function vmImage(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsImage | undefined> {
  const key = `${limits.memoryBytes}:${limits.stackBytes}:${invokeTimeMs}`;
  let image = images.get(key);
  if (!image) {
    if (images.size >= MAX_IMAGES) images.delete(images.keys().next().value!);
    image = buildImage(limits, invokeTimeMs).catch(() => undefined);
    images.set(key, image);
  }
  return image;
}

async function buildImage(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsImage | undefined> {
  const wasm = await loadQuickJsWasm();
  const breakAddress = await heapBreakAddress(wasm);
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
