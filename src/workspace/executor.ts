/**
 * @module
 * The executor contract (DESIGN.md §6.5). An {@link Executor} creates {@link Vm}s; a VM runs the guest
 * runtime and the cells of one job. The contract is message-shaped: code goes in as text, the guest's host
 * calls come out as `(op, args)` messages answered with text, and asynchronous host work is answered later —
 * so a pool of worker threads can host VMs without changing callers.
 */

/** Answers one message from the guest: a reply text now, or a promise of one for asynchronous host work. */
export type HostChannel = (op: string, args: string[]) => string | Promise<string>;

/** Resource limits one VM enforces itself (DESIGN.md §6.4); the workspace enforces the others. */
export interface VmLimits {
  /** Memory the VM may take from the worker, all of it: heap, stack and engine. @default 64 MiB */
  memoryBytes: number;
  /** Native stack the guest may use. @default 256 KiB */
  stackBytes: number;
}

/** Options for {@link Executor.createVm}. */
export interface CreateVmOptions {
  limits: VmLimits;
  /** Receives every message the guest sends. */
  host: HostChannel;
}

/** Options for one {@link Vm.runCell}. */
export interface RunCellOptions {
  /** CPU time the cell may spend executing guest code (time spent waiting for the host is not counted). */
  timeLimitMs: number;
  /** Abandons the cell as soon as possible. */
  signal?: AbortSignal;
}

/** Which limit ended a cell. */
export type CellLimit = "time" | "memory" | "stack" | "cancelled" | "engine";

/** How a cell ended: normally, or with the error agent code sees as `<name>: <message>`. */
export interface CellOutcome {
  error?: { name: string; message: string };
  /** True when the VM hit a limit and must not be reused. */
  poisoned?: boolean;
  /** The limit that ended the cell, when one did. */
  limit?: CellLimit;
  /** True when the VM cannot even report its variables any more (memory exhausted, engine failure). */
  broken?: boolean;
  /** Host calls the cell started and did not await: their results were discarded when it ended. */
  abandoned?: number;
}

/** One sandboxed realm running the guest runtime. */
export interface Vm {
  /**
   * Calls one of the guest runtime's private entry points (`restore`, `provide`, `collect`, …) with text
   * arguments. Agent code cannot reach these entries; only the host can.
   */
  invoke(entry: string, ...args: string[]): string;
  /** Runs a compiled cell to its end, pumping host promises and guest jobs in between. */
  runCell(script: string, options: RunCellOptions): Promise<CellOutcome>;
  /** Bytes of guest heap in use, when the executor can tell. */
  memoryUsage(): number | undefined;
  /** Bytes the VM holds from the worker (never above `limits.memoryBytes`), when the executor bounds it. */
  reservedMemory(): number | undefined;
  /** Frees the VM. Idempotent. */
  dispose(): void;
}

/** Creates VMs. */
export interface Executor {
  /** `quickjs` or `trusted`. */
  readonly name: string;
  /** True when the VM is an isolation boundary for untrusted code. */
  readonly isolated: boolean;
  createVm(options: CreateVmOptions): Promise<Vm>;
  /** Throws `InvalidWorkspaceLimitError` for limits this executor cannot honour (checked when a `Statek` opens). */
  checkLimits?(limits: VmLimits): void;
}

/** Default {@link VmLimits}. */
export const DEFAULT_VM_LIMITS: Readonly<VmLimits> = Object.freeze({ memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 });
