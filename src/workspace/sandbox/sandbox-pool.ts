/**
 * @module
 * A pool of sandbox threads, owned by the executor that uses it: by default up to one per core,
 * started as the work needs them. A new VM goes to the thread with the least work in flight, then the fewest VMs;
 * a VM stays on its thread for its life. A thread the watchdog stopped is replaced by a new one the next time a
 * VM is placed. Two pools never share a thread, a module instance or a VM.
 */
import { availableParallelism } from "node:os";
import { STALLED_MS, SandboxThread } from "./sandbox-thread.ts";
import type { Executor } from "../executor.ts";
import { compileQuickJs } from "../quickjs/quickjs-wasm.ts";
import type { ThreadData, ThreadSettings } from "./thread-protocol.ts";

/** How a sandbox pool is set up. */
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

/** An executor whose VMs run on a sandbox pool (the built-in ones). */
export interface PooledExecutor extends Executor {
  /** The executor's sandbox threads (made with its first VM when it was given none). */
  readonly pool: SandboxPool;
  /** Ends the pool's threads; the executor makes no VM afterwards. */
  close(): void;
}

/** Checks a pool's options and fills in the defaults; throws a `RangeError` naming the first bad one. */
export function checkSandboxPoolOptions(options: SandboxPoolOptions): { size: number; maxThreads: number; settings: ThreadSettings } {
  const { threads, maxThreads, ...settings } = options;
  const size = threads ?? Math.max(1, availableParallelism());
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`sandbox pool: threads must be a positive integer, got ${String(threads)}`);
  const max = maxThreads ?? size * 4;
  if (!Number.isInteger(max) || max < size) throw new RangeError(`sandbox pool: maxThreads must be an integer of at least threads (${size}), got ${String(maxThreads)}`);
  for (const [name, value] of Object.entries(settings)) {
    if (!["slotPoolMaxIdle", "slotPoolMaxReusedBytes", "readyVms"].includes(name)) throw new RangeError(`sandbox pool: unknown option ${name}`);
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) throw new RangeError(`sandbox pool: ${name} must be a non-negative integer, got ${String(value)}`);
  }
  return { size, maxThreads: max, settings };
}

/**
 * The pool given, or — checked now, made when first needed — one of the options given: an executor's threads
 * start with its first VM.
 */
export function lazyPool(given: SandboxPool | SandboxPoolOptions | undefined): () => SandboxPool {
  if (given instanceof SandboxPool) return () => given;
  const options = { ...given };
  checkSandboxPoolOptions(options);
  let pool: SandboxPool | undefined;
  return () => (pool ??= new SandboxPool(options));
}

/**
 * How long a thread stays once it hosts no VM. Under load the pool needs extras again and again; ending each at
 * once and starting another a moment later (a new thread loads the engine and makes its ready VMs) cost more CPU
 * than the extras saved. A pool whose threads all went idle this long ends them (and its spare): an executor
 * nobody closed holds no thread for ever.
 */
const RETIRE_AFTER_MS = 10_000;

/** Sandbox threads for one executor (or several that are given the same pool). */
export class SandboxPool {
  readonly #settings: ThreadSettings;
  readonly #size: number;
  readonly #maxThreads: number;
  readonly #threads: SandboxThread[] = [];
  /** A thread started ahead of time, so that replacing a stopped thread or adding an extra one costs nothing then. */
  #spare: SandboxThread | undefined;
  #compiled: object | undefined;
  #compiling = false;
  #prepare: ThreadData["prepare"];
  #nextVm = 1;
  #closed = false;
  readonly #retiring = new WeakMap<SandboxThread, NodeJS.Timeout>();

  /** Checks `options` ({@link checkSandboxPoolOptions}). No thread starts before the first VM. */
  constructor(options: SandboxPoolOptions = {}) {
    const { size, maxThreads, settings } = checkSandboxPoolOptions(options);
    this.#size = size;
    this.#maxThreads = maxThreads;
    this.#settings = settings;
  }

  /** Threads running now (for measurements and tests). */
  get threadCount(): number {
    return this.#threads.filter((thread) => !thread.lost).length;
  }

  /** @internal The threads running now, for tests that look at one. */
  get threads(): readonly SandboxThread[] {
    return this.#threads.filter((thread) => !thread.lost);
  }

  /**
   * @internal A thread for a new VM, and the VM's id: the least busy thread that is not running a long cell — or a new
   * thread, while the pool is below its size and every thread has work, or while every thread runs a long cell
   * (up to `maxThreads`). `limits`: the VM's, which new threads make ready VMs for.
   */
  place(limits?: ThreadData["prepare"]): { thread: SandboxThread; vm: number } {
    if (this.#closed) throw new Error("the sandbox pool is closed (its executor was closed)");
    if (limits) this.#prepare = limits;
    this.#compile();
    for (let i = this.#threads.length - 1; i >= 0; i--) if (this.#threads[i]!.lost) this.#threads.splice(i, 1);
    const free = this.#threads.filter((thread) => !thread.stalled(STALLED_MS));
    let chosen: SandboxThread | undefined;
    for (const thread of free.length ? free : this.#threads) {
      if (!chosen || thread.busy < chosen.busy || (thread.busy === chosen.busy && thread.vmCount < chosen.vmCount)) chosen = thread;
    }
    const grow = this.#threads.length < this.#size && (!chosen || chosen.busy > 0);
    if (!chosen || grow || (free.length === 0 && this.#threads.length < this.#maxThreads)) {
      chosen = this.#newThread();
      this.#threads.push(chosen);
    }
    return { thread: chosen, vm: this.#nextVm++ };
  }

  /** Ends every thread; the pool makes no more. */
  close(): void {
    this.#closed = true;
    for (const thread of [...this.#threads, ...(this.#spare ? [this.#spare] : [])]) thread.close();
    this.#threads.length = 0;
    this.#spare = undefined;
  }

  #compile(): void {
    if (this.#compiled || this.#compiling) return;
    this.#compiling = true;
    void compileQuickJs().then((module) => (this.#compiled = module), () => (this.#compiling = false));
  }

  #startThread(): SandboxThread {
    const thread = new SandboxThread({ settings: { ...this.#settings }, ...(this.#compiled ? { quickjs: this.#compiled } : {}), ...(this.#prepare ? { prepare: this.#prepare } : {}) });
    thread.onIdle = (idle) => this.#retire(idle);
    return thread;
  }

  /**
   * A started thread: the spare if there is one. Once the pool reached its size, a new spare is started after the
   * current work, for the next replacement or extra thread.
   */
  #newThread(): SandboxThread {
    const thread = this.#spare && !this.#spare.lost ? this.#spare : this.#startThread();
    this.#spare = undefined;
    if (this.#threads.length + 1 >= this.#size) {
      setImmediate(() => {
        if (!this.#closed && (!this.#spare || this.#spare.lost)) this.#spare = this.#startThread();
      }).unref();
    }
    return thread;
  }

  /**
   * Ends a thread that hosted no VM for {@link RETIRE_AFTER_MS}: an extra one (the pool is above its size), or
   * any one once every thread of the pool is idle — then the spare too.
   */
  #retire(thread: SandboxThread): void {
    if (this.#retiring.has(thread)) return;
    const timer = setTimeout(() => {
      this.#retiring.delete(thread);
      const idle = (candidate: SandboxThread) => candidate.vmCount === 0 && candidate.busy === 0;
      if (!idle(thread) || !this.#threads.includes(thread)) return;
      const ending = this.#threads.every(idle) ? [...this.#threads] : this.#threads.length > this.#size ? [thread] : [];
      for (const ended of ending) {
        this.#threads.splice(this.#threads.indexOf(ended), 1);
        ended.close();
      }
      if (this.#threads.length === 0) {
        this.#spare?.close();
        this.#spare = undefined;
      }
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.#retiring.set(thread, timer);
  }
}
