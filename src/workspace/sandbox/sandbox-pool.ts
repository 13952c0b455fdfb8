/**
 * @module
 * The process-wide pool of sandbox threads (DESIGN.md §6.5): by default one per core, made when first
 * needed. A new VM goes to the thread with the least work in flight, then the fewest VMs; a VM stays on its
 * thread for its life. A thread the watchdog stopped is replaced by a new one the next time a VM is placed.
 */
import { availableParallelism } from "node:os";
import { SandboxThread } from "./sandbox-thread.ts";
import type { ThreadSettings } from "./thread-protocol.ts";

/** How the sandbox thread pool is set up. */
export interface SandboxPoolOptions extends ThreadSettings {
  /** Sandbox threads. @default the number of cores */
  threads?: number;
}

const settings: ThreadSettings = {};
let size = Math.max(1, availableParallelism());
const threads: SandboxThread[] = [];
let nextVm = 1;

/**
 * Sets up the process-wide sandbox thread pool: its size, and the QuickJS slot pool and ready VMs of each
 * thread. Threads already running take the new VM settings; a smaller size applies as threads are replaced.
 */
export function configureSandboxPool(options: SandboxPoolOptions): void {
  if (options.threads !== undefined) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new RangeError(`configureSandboxPool: threads must be a positive integer, got ${String(options.threads)}`);
    size = options.threads;
  }
  const { threads: _threads, ...rest } = options;
  Object.assign(settings, rest);
  for (const thread of threads) if (!thread.lost) void thread.command({ kind: "configure", settings: rest }).catch(() => {});
}

/** A thread for a new VM, and the VM's id. */
export function placeVm(): { thread: SandboxThread; vm: number } {
  for (let i = threads.length - 1; i >= 0; i--) if (threads[i]!.lost) threads.splice(i, 1);
  let chosen: SandboxThread | undefined;
  if (threads.length < size) {
    chosen = new SandboxThread({ ...settings });
    threads.push(chosen);
  } else {
    for (const thread of threads) {
      if (!chosen || thread.busy < chosen.busy || (thread.busy === chosen.busy && thread.vmCount < chosen.vmCount)) chosen = thread;
    }
  }
  return { thread: chosen!, vm: nextVm++ };
}

/** Threads running now (for measurements and tests). */
export function sandboxThreadCount(): number {
  return threads.filter((thread) => !thread.lost).length;
}

/** Sets how many QuickJS VMs each sandbox thread makes ahead of time per set of limits (0: none). @default 2 */
export function configureReadyVms(count: number): void {
  configureSandboxPool({ readyVms: count });
}

/** Sets how each sandbox thread pools idle QuickJS module instances (`maxIdle: 0` makes every VM a fresh one). */
export function configureSlotPool(settings: { maxIdle?: number; maxReusedBytes?: number }): void {
  configureSandboxPool({
    ...(settings.maxIdle !== undefined ? { slotPoolMaxIdle: settings.maxIdle } : {}),
    ...(settings.maxReusedBytes !== undefined ? { slotPoolMaxReusedBytes: settings.maxReusedBytes } : {}),
  });
}
