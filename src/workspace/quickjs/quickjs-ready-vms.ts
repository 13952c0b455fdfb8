/**
 * @module
 * VMs made ahead of time. A VM is copied from this thread's image of a bootstrapped VM (`quickjs-images.ts`,
 * ~1 ms) — or, without one, made new, which costs QuickJS compiling the guest runtime (~17 ms); none of it
 * depends on the job. So the executor keeps a few VMs with the runtime installed but no job in them, hands
 * one out when a workspace opens, and makes the replacement after the current work, off the path of the
 * step that needed it. A ready VM has never run agent code.
 *
 * The set is process-wide and keyed by limits, like the slot pool.
 */
import type { VmLimits } from "../executor.ts";
import { vmImage } from "./quickjs-images.ts";
import { acquireSlot, releaseSlot } from "./quickjs-slot-pool.ts";
import { QuickJsVm } from "./quickjs-vm.ts";

let target = 2;
const ready = new Map<string, QuickJsVm[]>();
const refilling = new Set<string>();

/** How many VMs per set of limits are kept ready (0 makes every VM when it is asked for). @default 2 */
export function configureReadyVms(count: number): void {
  target = count;
  for (const vms of ready.values()) for (const vm of vms.splice(count)) vm.dispose();
}

/** Makes the ready VMs for these limits now (a new sandbox thread prepares itself before it is needed). */
export function prepareReadyVms(limits: VmLimits, invokeTimeMs: number): void {
  scheduleRefill(`${limits.memoryBytes}:${limits.stackBytes}:${invokeTimeMs}`, limits, invokeTimeMs);
}

/** A VM with these limits: a ready one if there is one, else a new one. A replacement is made afterwards. */
export async function takeVm(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsVm> {
  const key = `${limits.memoryBytes}:${limits.stackBytes}:${invokeTimeMs}`;
  const vm = ready.get(key)?.pop();
  scheduleRefill(key, limits, invokeTimeMs);
  return vm ?? makeVm(limits, invokeTimeMs);
}

async function makeVm(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsVm> {
  const image = await vmImage(limits, invokeTimeMs);
  const slot = await acquireSlot(limits.memoryBytes, image !== undefined);
  // A VM that fails to start disposes itself, which gives the slot back once (never twice: two VMs in one
  // slot would hear each other's guest messages).
  return QuickJsVm.create(slot, { ...limits }, invokeTimeMs, releaseSlot, image);
}

function scheduleRefill(key: string, limits: VmLimits, invokeTimeMs: number): void {
  if (target <= 0 || refilling.has(key)) return;
  refilling.add(key);
  const timer = setImmediate(() => void (async () => {
    try {
      let vms = ready.get(key);
      if (!vms) ready.set(key, (vms = []));
      while (vms.length < target) vms.push(await makeVm(limits, invokeTimeMs));
    } catch {
      // A VM that cannot be made now is made when it is asked for, and its error reported then.
    } finally {
      refilling.delete(key);
    }
  })());
  timer.unref();
}
