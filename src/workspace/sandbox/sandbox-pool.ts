/**
 * @module
 * The process-wide pool of sandbox threads: by default one per core, made when first
 * needed. A new VM goes to the thread with the least work in flight, then the fewest VMs; a VM stays on its
 * thread for its life. A thread the watchdog stopped is replaced by a new one the next time a VM is placed.
 */
import { availableParallelism } from "node:os";
import { STALLED_MS, SandboxThread } from "./sandbox-thread.ts";
import { compileQuickJs } from "../quickjs/quickjs-wasm.ts";
import type { ThreadData, ThreadSettings } from "./thread-protocol.ts";

/** How the sandbox thread pool is set up. */
export interface SandboxPoolOptions extends ThreadSettings {
  /** Sandbox threads kept. @default the number of cores */
  threads?: number;
  /**
   * Threads at most, counting the extra ones made while every thread runs a long cell (so that other jobs
   * keep running beside cells stuck until the watchdog stops them); extra threads end when their VMs do.
   * @default four times `threads`
   */
  maxThreads?: number;
}

export { STALLED_MS };

const settings: ThreadSettings = {};
let size = Math.max(1, availableParallelism());
let maxThreads = size * 4;
const threads: SandboxThread[] = [];
/** A thread started ahead of time, so that replacing a stopped thread or adding one costs nothing then. */
let spare: SandboxThread | undefined;
let compiled: object | undefined;
let prepare: ThreadData["prepare"];
let nextVm = 1;

/**
 * Sets up the process-wide sandbox thread pool: its size, and the QuickJS slot pool and ready VMs of each
 * thread. Threads already running take the new VM settings; a smaller size applies as threads are replaced.
 */
export function configureSandboxPool(options: SandboxPoolOptions): void {
  if (options.threads !== undefined) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new RangeError(`configureSandboxPool: threads must be a positive integer, got ${String(options.threads)}`);
    size = options.threads;
    maxThreads = Math.max(maxThreads, size);
  }
  if (options.maxThreads !== undefined) {
    if (!Number.isInteger(options.maxThreads) || options.maxThreads < size) throw new RangeError(`configureSandboxPool: maxThreads must be an integer of at least threads (${size}), got ${String(options.maxThreads)}`);
    maxThreads = options.maxThreads;
  }
  const { threads: _threads, maxThreads: _maxThreads, ...rest } = options;
  Object.assign(settings, rest);
  for (const thread of [...threads, ...(spare ? [spare] : [])]) if (!thread.lost) void thread.command({ kind: "configure", settings: rest }).catch(() => {});
}

function startThread(): SandboxThread {
  const thread = new SandboxThread({ settings: { ...settings }, ...(compiled ? { quickjs: compiled } : {}), ...(prepare ? { prepare } : {}) });
  thread.onIdle = retireExtra;
  return thread;
}

/** A started thread: the spare if there is one (and a new spare is started after the current work). */
function newThread(): SandboxThread {
  const thread = spare && !spare.lost ? spare : startThread();
  spare = undefined;
  setImmediate(() => {
    if (!spare || spare.lost) spare = startThread();
  }).unref();
  return thread;
}

/**
 * A thread for a new VM of `limits`, and the VM's id: the least busy thread that is not running a long cell;
 * a new thread while the pool is below its size, or while every thread runs a long cell (up to `maxThreads`).
 */
export function placeVm(limits?: ThreadData["prepare"]): { thread: SandboxThread; vm: number } {
  if (limits) prepare = limits;
  if (!compiled) void compileQuickJs().then((module) => (compiled = module), () => {});
  for (let i = threads.length - 1; i >= 0; i--) if (threads[i]!.lost) threads.splice(i, 1);
  const free = threads.filter((thread) => !thread.stalled(STALLED_MS));
  let chosen: SandboxThread | undefined;
  if (threads.length < size || (free.length === 0 && threads.length < maxThreads)) {
    chosen = newThread();
    threads.push(chosen);
  } else {
    for (const thread of free.length ? free : threads) {
      if (!chosen || thread.busy < chosen.busy || (thread.busy === chosen.busy && thread.vmCount < chosen.vmCount)) chosen = thread;
    }
  }
  return { thread: chosen!, vm: nextVm++ };
}

/**
 * How long an extra thread stays once it hosts no VM. Under load the pool needs extras again and again; ending
 * each at once and starting another a moment later (a new thread loads the engine and makes its ready VMs) cost
 * more CPU than the extras saved.
 */
const RETIRE_AFTER_MS = 10_000;
const retiring = new WeakMap<SandboxThread, NodeJS.Timeout>();

/** Ends a thread that hosted no VM for {@link RETIRE_AFTER_MS} while the pool is above its size. */
function retireExtra(thread: SandboxThread): void {
  if (threads.length <= size || retiring.has(thread)) return;
  const timer = setTimeout(() => {
    retiring.delete(thread);
    if (threads.length <= size || thread.vmCount > 0 || thread.busy > 0) return;
    const index = threads.indexOf(thread);
    if (index < 0) return;
    threads.splice(index, 1);
    thread.close();
  }, RETIRE_AFTER_MS);
  timer.unref();
  retiring.set(thread, timer);
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
