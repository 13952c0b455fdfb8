/**
 * @module
 * VMs made ahead of time. A VM is copied from the thread's image of a bootstrapped VM (`quickjs-images.ts`,
 * ~1 ms) — or, without one, made new, which costs QuickJS compiling the guest runtime (~17 ms); none of it
 * depends on the job. So a thread keeps a few VMs with the runtime installed but no job in them, hands one out
 * when a workspace opens, and makes the replacement after the current work, off the path of the step that
 * needed it. A ready VM has never run agent code.
 *
 * One set per sandbox thread, keyed by limits, like the images.
 */
import type { VmLimits } from "../executor.ts";
import { limitsKey, type VmImages } from "./quickjs-images.ts";
import type { SlotPool } from "./quickjs-slot-pool.ts";
import { QuickJsVm } from "./quickjs-vm.ts";

/** A thread's ready VMs. */
export class ReadyVms {
  #target: number;
  readonly #ready = new Map<string, QuickJsVm[]>();
  readonly #refilling = new Set<string>();
  readonly #images: VmImages;
  readonly #slots: SlotPool;

  /** `target`: VMs kept ready per set of limits (0 makes every VM when it is asked for). */
  constructor(images: VmImages, slots: SlotPool, target = 2) {
    this.#images = images;
    this.#slots = slots;
    this.#target = target;
  }

  /** Changes how many VMs per set of limits are kept ready; those beyond it are dropped. */
  configure(target: number): void {
    this.#target = target;
    for (const vms of this.#ready.values()) for (const vm of vms.splice(target)) vm.dispose();
  }

  /** Makes the ready VMs for these limits now (a new sandbox thread prepares itself before it is needed). */
  prepare(limits: VmLimits, invokeTimeMs: number): void {
    this.#scheduleRefill(limitsKey(limits, invokeTimeMs), limits, invokeTimeMs);
  }

  /** A VM with these limits: a ready one if there is one, else a new one. A replacement is made afterwards. */
  async take(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsVm> {
    const key = limitsKey(limits, invokeTimeMs);
    const vm = this.#ready.get(key)?.pop();
    this.#scheduleRefill(key, limits, invokeTimeMs);
    return vm ?? this.#make(limits, invokeTimeMs);
  }

  async #make(limits: VmLimits, invokeTimeMs: number): Promise<QuickJsVm> {
    const image = await this.#images.image(limits, invokeTimeMs);
    const slot = await this.#slots.acquire(limits.memoryBytes, image !== undefined);
    // A VM that fails to start disposes itself, which gives the slot back once (never twice: two VMs in one
    // slot would hear each other's guest messages).
    return QuickJsVm.create(slot, { ...limits }, invokeTimeMs, (used) => this.#slots.release(used), image);
  }

  #scheduleRefill(key: string, limits: VmLimits, invokeTimeMs: number): void {
    if (this.#target <= 0 || this.#refilling.has(key)) return;
    this.#refilling.add(key);
    const timer = setImmediate(() => void (async () => {
      try {
        let vms = this.#ready.get(key);
        if (!vms) this.#ready.set(key, (vms = []));
        while (vms.length < this.#target) vms.push(await this.#make(limits, invokeTimeMs));
      } catch {
        // A VM that cannot be made now is made when it is asked for, and its error reported then.
      } finally {
        this.#refilling.delete(key);
      }
    })());
    timer.unref();
  }
}
