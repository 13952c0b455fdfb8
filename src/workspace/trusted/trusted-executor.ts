/**
 * @module
 * The `trusted` executor: agent code runs in a `node:vm` context on a sandbox thread of the worker process
 * (threads like the `quickjs` executor's, so the scheduling thread never runs guest code). **It is not a
 * sandbox.** Code in it can reach the host realm, and nothing bounds its memory; its name, its `isolated`
 * flag and the system prompt of every job that uses it say so. Use it only for code you trust (your own
 * cells in development, debugging with V8's tools); use the default `quickjs` executor for model-written code.
 */
import { lazyPool, type PooledExecutor, type SandboxPool, type SandboxPoolOptions } from "../sandbox/sandbox-pool.ts";
import { createThreadVm } from "../sandbox/thread-vm.ts";

/** Options of {@link createTrustedExecutor}. */
export interface TrustedExecutorOptions {
  /** Wall-clock budget of the runtime's own entry points (restore, collect, …) per call. @default 5_000 */
  invokeTimeMs?: number;
  /** The sandbox threads the VMs run on, or how to set up the executor's own. @default a pool of its own */
  pool?: SandboxPool | SandboxPoolOptions;
}

/**
 * Creates the `trusted` executor (`node:vm`, same process, on a sandbox thread). Not an isolation boundary: for
 * trusted code only.
 *
 * @example
 * ```ts
 * const statek = await Statek.open({ executor: "trusted", agents: [agent] }); // trusted code only
 * ```
 */
export function createTrustedExecutor(options: TrustedExecutorOptions = {}): PooledExecutor {
  const invokeTimeMs = options.invokeTimeMs ?? 5_000;
  const pool = lazyPool(options.pool);
  return {
    name: "trusted",
    isolated: false,
    get pool() {
      return pool();
    },
    async createVm({ limits, host }) {
      return createThreadVm(pool(), "trusted", { limits, host }, invokeTimeMs);
    },
    close() {
      pool().close();
    },
  };
}
