/**
 * @module
 * The `quickjs` executor (the default, and the isolation boundary): each VM is a QuickJS-NG runtime and
 * context compiled to WebAssembly, in a module instance of its own whose memory cannot grow past the VM's
 * memory bound, on a thread of the executor's sandbox pool (`sandbox/`) so that no guest code ever runs on the
 * scheduling thread. Agent code sees only the guest runtime; its one host function carries text messages to
 * the {@link VmHost}.
 */
import { InvalidWorkspaceLimitError } from "../../errors/invalid-workspace-limit-error.ts";
import type { VmLimits } from "../executor.ts";
import { formatBytes } from "../limits.ts";
import { lazyPool, type PooledExecutor, type SandboxPool, type SandboxPoolOptions } from "../sandbox/sandbox-pool.ts";
import { createThreadVm } from "../sandbox/thread-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES } from "./quickjs-wasm.ts";

/** Options of {@link createQuickJsExecutor}. */
export interface QuickJsExecutorOptions {
  /** Wall-clock budget of the runtime's own entry points (restore, collect, …) per call. @default 5_000 */
  invokeTimeMs?: number;
  /**
   * The sandbox threads the VMs run on: a pool (which several executors may share), or how to set up the
   * executor's own, made when its first VM is. @default a pool of its own with the default settings
   */
  pool?: SandboxPool | SandboxPoolOptions;
}

/** The smallest memory bound a QuickJS VM can have: the module's initial memory plus room for a heap. */
export const QUICKJS_MIN_VM_MEMORY_BYTES = QUICKJS_MIN_MEMORY_BYTES + 8 * 1024 * 1024;

/**
 * The largest guest stack a QuickJS VM accepts. Beyond about 5 MiB the engine's own stack cannot hold it
 * and the runtime fails to start; from 512 KiB on, the worker's native stack (which WebAssembly frames
 * share) may run out first — contained, but the VM is discarded. The default, 256 KiB, avoids both.
 */
export const QUICKJS_MAX_STACK_BYTES = 4 * 1024 * 1024;

/**
 * Creates the default, isolating executor, with a sandbox pool of its own unless it is given one.
 *
 * @example
 * ```ts
 * const executor = createQuickJsExecutor({ pool: { threads: 2, readyVms: 0 } });
 * const statek = await Statek.open({ executor, agents: [agent] });
 * ```
 */
export function createQuickJsExecutor(options: QuickJsExecutorOptions = {}): PooledExecutor {
  const invokeTimeMs = options.invokeTimeMs ?? 5_000;
  const pool = lazyPool(options.pool);
  return {
    name: "quickjs",
    isolated: true,
    checkLimits,
    get pool() {
      return pool();
    },
    async createVm({ limits, host }) {
      checkLimits(limits);
      return createThreadVm(pool(), "quickjs", { limits, host }, invokeTimeMs);
    },
    close() {
      pool().close();
    },
  };
}

/** Refuses bounds a QuickJS VM cannot honour, naming the limit. */
function checkLimits(limits: VmLimits): void {
  if (limits.memoryBytes < QUICKJS_MIN_VM_MEMORY_BYTES) {
    throw new InvalidWorkspaceLimitError({
      limit: "memoryBytes",
      value: limits.memoryBytes,
      expected: `at least ${formatBytes(QUICKJS_MIN_VM_MEMORY_BYTES)} for the quickjs executor`,
    });
  }
  if (limits.stackBytes > QUICKJS_MAX_STACK_BYTES) {
    throw new InvalidWorkspaceLimitError({
      limit: "stackBytes",
      value: limits.stackBytes,
      expected: `at most ${formatBytes(QUICKJS_MAX_STACK_BYTES)} for the quickjs executor (its engine's own stack is not much larger)`,
    });
  }
}
