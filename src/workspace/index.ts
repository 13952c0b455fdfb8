/**
 * @module
 * `statek/executor`: where agent code runs. The built-in executors — `createQuickJsExecutor` (the sandbox, the
 * default) and `createTrustedExecutor` (`node:vm` in the application's process, **not a sandbox**) — with their
 * options and the QuickJS executor's process-wide pool settings; the {@link Executor} contract for another
 * executor, the parts every executor's VM uses (the guest runtime's source, the host side of its messages), and
 * the conformance suite the built-in executors pass: `runWorkspaceSuite({ name, executor })` inside a
 * `node:test` file. Pass an executor as `Statek.open({ executor })`. This entry only re-exports.
 */

/** The built-in executors and their settings. */
export { createQuickJsExecutor, QUICKJS_MIN_VM_MEMORY_BYTES, QUICKJS_MAX_STACK_BYTES } from "./quickjs/quickjs-executor.ts";
export type { QuickJsExecutorOptions } from "./quickjs/quickjs-executor.ts";
export { configureSlotPool } from "./quickjs/quickjs-slot-pool.ts";
export type { SlotPoolOptions } from "./quickjs/quickjs-slot-pool.ts";
export { configureReadyVms } from "./quickjs/quickjs-ready-vms.ts";
export { createTrustedExecutor } from "./trusted/trusted-executor.ts";
export type { TrustedExecutorOptions } from "./trusted/trusted-executor.ts";
export type { ExecutorChoice } from "./resolve-executor.ts";

/** The contract, and what every executor's VM is built from. */
export { DEFAULT_VM_LIMITS } from "./executor.ts";
export type { Executor, Vm, VmLimits, HostChannel, CreateVmOptions, RunCellOptions, CellOutcome, CellLimit } from "./executor.ts";
export { guestBootstrapSource } from "./guest/guest-bootstrap.ts";
export { GUEST_OPERATIONS, operationName } from "./guest/guest-protocol.ts";
export { HostLink } from "./host-link.ts";
export type { CellEnd } from "./host-link.ts";

/** The conformance suite every executor passes. */
export { runWorkspaceSuite } from "./workspace.suite.ts";
export type { WorkspaceSuiteOptions } from "./workspace.suite.ts";
