/**
 * @module
 * The `quickjs` executor (the default, and the isolation boundary): each VM is a QuickJS-NG runtime and
 * context compiled to WebAssembly, in a module instance of its own whose memory cannot grow past the VM's
 * memory bound, on a sandbox thread (`sandbox/`) so that no guest code ever runs on the scheduling thread.
 * Agent code sees only the guest runtime; its one host function carries text messages to the {@link VmHost}.
 */
import { InvalidWorkspaceLimitError } from "../../errors/invalid-workspace-limit-error.ts";
import type { Executor, VmLimits } from "../executor.ts";
import { formatBytes } from "../limits.ts";
import { createThreadVm } from "../sandbox/thread-vm.ts";
import { QUICKJS_MIN_MEMORY_BYTES } from "./quickjs-wasm.ts";

/** Options of {@link createQuickJsExecutor}. */
export interface QuickJsExecutorOptions {
  /** Wall-clock budget of the runtime's own entry points (restore, collect, …) per call. @default 5_000 */
  invokeTimeMs?: number;
}

/** The smallest memory bound a QuickJS VM can have: the module's initial memory plus room for a heap. */
export const QUICKJS_MIN_VM_MEMORY_BYTES = QUICKJS_MIN_MEMORY_BYTES + 8 * 1024 * 1024;

/**
 * The largest guest stack a QuickJS VM accepts. Beyond about 5 MiB the engine's own stack cannot hold it
 * and the runtime fails to start; from 512 KiB on, the worker's native stack (which WebAssembly frames
 * share) may run out first — contained, but the VM is discarded. The default, 256 KiB, avoids both.
 */
export const QUICKJS_MAX_STACK_BYTES = 4 * 1024 * 1024;

/** Creates the default, isolating executor. The WebAssembly module is compiled once per process. */
export function createQuickJsExecutor(options: QuickJsExecutorOptions = {}): Executor {
  const invokeTimeMs = options.invokeTimeMs ?? 5_000;
  return {
    name: "quickjs",
    isolated: true,
    checkLimits,
    async createVm({ limits, host }) {
      checkLimits(limits);
      return createThreadVm("quickjs", { limits, host }, invokeTimeMs);
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
