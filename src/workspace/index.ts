/**
 * @module
 * `statek/executor`: where agent code runs. The built-in executors — `createQuickJsExecutor` (the sandbox, the
 * default) and `createTrustedExecutor` (`node:vm` in the application's process, **not a sandbox**) — with their
 * options and their sandbox thread pools (`SandboxPool`: each executor makes its own unless given one, so two
 * `Statek` instances never share threads or VMs); the {@link Executor} contract for another executor, and the
 * conformance suite the built-in executors pass: `runWorkspaceSuite({ name, executor })` inside a `node:test`
 * file. The guest runtime and its message protocol are the built-in executors' own, not part of the contract.
 * Pass an executor as `Statek.open({ executor })`. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../runtime/check-node-version.ts";

/** The built-in executors and their settings. */
export { createQuickJsExecutor, QUICKJS_MIN_VM_MEMORY_BYTES, QUICKJS_MAX_STACK_BYTES } from "./quickjs/quickjs-executor.ts";
export type { QuickJsExecutorOptions } from "./quickjs/quickjs-executor.ts";
export { SandboxPool } from "./sandbox/sandbox-pool.ts";
export type { SandboxPoolOptions, PooledExecutor } from "./sandbox/sandbox-pool.ts";
export type { SlotPoolOptions } from "./quickjs/quickjs-slot-pool.ts";
export { createTrustedExecutor } from "./trusted/trusted-executor.ts";
export type { TrustedExecutorOptions } from "./trusted/trusted-executor.ts";
export type { ExecutorChoice } from "./resolve-executor.ts";

/** The contract. */
export { DEFAULT_VM_LIMITS } from "./executor.ts";
export type {
  Executor, Vm, VmLimits, VmHost, IdleAnswer, Delivery, EntryCall, EntryAnswer, GuestError, CreateVmOptions, RunCellOptions, CellOutcome, CellLimit,
} from "./executor.ts";

/** The conformance suite every executor passes. */
export { runWorkspaceSuite } from "./workspace.suite.ts";
export type { WorkspaceSuiteOptions } from "./workspace.suite.ts";
