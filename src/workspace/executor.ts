/**
 * @module
 * The executor contract. An {@link Executor} creates {@link Vm}s; a VM runs the guest
 * runtime and the cells of one job. The contract is message-shaped: code goes in as text, the guest's host
 * calls come out as `(op, args)` messages answered with text.
 *
 * Two rules make it the base of durable execution (§7):
 * - **A synchronous crossing may wait for the host.** {@link VmHost.receive} may answer with a promise; the
 *   guest stays blocked on its call until it settles, and that time is not charged to the cell. So the host
 *   can make a journal entry durable before a side-effecting call returns.
 * - **The host orders asynchronous results.** A host call whose result the guest gets as a promise is
 *   answered with a pending reply (`p<id>`, see `guest/guest-protocol.ts`); the VM never settles it by
 *   itself. Whenever the guest runs out of work, the VM asks {@link VmHost.idle}, which hands it the results
 *   to deliver next, in the host's order, or says how the cell stops waiting. A replay delivers the journaled
 *   order; a live run the order results arrived in.
 */

/** The host side of one VM: it answers the guest's messages and decides what the guest is handed next. */
export interface VmHost {
  /**
   * Answers one guest message. A string answers at once. A promise keeps the guest blocked on its call until
   * the promise settles (a rejection answers like a thrown error); the wait is not charged to the cell. The
   * engine itself sends `begin` (`CODE_START_OP`) when the cell's own code starts, after its `before` calls.
   */
  receive(op: string, args: readonly string[]): string | Promise<string>;
  /**
   * The guest has nothing left to run inside the current cell (its job queue is empty). Resolves to the
   * pending results to hand it next — each is settled, and the guest's jobs run, before the next — or to how
   * the cell stops. `ended` says the cell's code has finished (its top-level promise settled without error).
   */
  idle(state: { ended: boolean }): Promise<IdleAnswer>;
}

/** A pending host result handed to the guest: the id of its pending reply and the reply itself. */
export interface Delivery {
  id: number;
  reply: string;
}

/** What {@link VmHost.idle} decides. */
export type IdleAnswer =
  /** Hand these results to the guest, in order. */
  | { deliver: readonly Delivery[] }
  /**
   * The cell is over: it finished; it waits for something that can never come (`stalled`); or it waits only
   * for durable futures (`suspended`): the VM stops it where it is, without its `after` call, and the host
   * resumes it later by replaying its journal in a new VM.
   */
  | { end: "finished" | "stalled" | "suspended" };

/** Resource limits one VM enforces itself; the workspace enforces the others. */
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
  host: VmHost;
}

/** A call of one of the guest runtime's private entries (`provide`, `restore`, `collect`, …). */
export interface EntryCall {
  entry: string;
  args: readonly string[];
}

/** Options for one {@link Vm.runCell}. */
export interface RunCellOptions {
  /** CPU time the cell may spend executing guest code (time the host takes to answer is not counted). */
  timeLimitMs: number;
  /**
   * Wall-clock time the cell may take, host time included (its host calls, timers, pending promises). Past it
   * the executor stops the cell's code, answers a host call it waits in with a `TimeoutError`, and ends the cell
   * with a `TimeoutError` — its `after` call is still made. @default 60_000
   */
  wallTimeMs?: number;
  /** Abandons the cell as soon as possible. */
  signal?: AbortSignal;
  /**
   * Entry calls made first, charged to the cell's time and under its limits: restoring variables into a new
   * VM runs agent code (class static blocks, getters), and that code belongs to the cell.
   */
  before?: readonly EntryCall[];
  /**
   * An entry call made once the cell is over, unless the VM broke (collecting the variables). Its reply is
   * {@link CellOutcome.after}; it has its own time limit (the executor's entry limit).
   */
  after?: EntryCall;
}

/** Which limit ended a cell. */
export type CellLimit = "time" | "memory" | "stack" | "cancelled" | "engine";

/** A runtime entry's answer: its text, or the guest error it threw. */
export type EntryAnswer = { text: string } | { error: GuestError };

/** A guest error as `<name>: <message>`. */
export interface GuestError {
  name: string;
  message: string;
}

/** How a cell ended: normally, or with the error agent code sees as `<name>: <message>`. */
export interface CellOutcome {
  error?: GuestError;
  /** True when the VM hit a limit and must not be reused. */
  poisoned?: boolean;
  /** The limit that ended the cell, when one did. */
  limit?: CellLimit;
  /** True when the VM cannot even report its variables any more (memory exhausted, engine failure, thread lost). */
  broken?: boolean;
  /** The reply of {@link RunCellOptions.after}, or the guest error it threw; absent when it was not made. */
  after?: { text: string } | { error: GuestError };
  /** CPU time the cell's guest code used, in milliseconds. */
  cpuMs?: number;
  /** The cell stopped where it waits for durable futures (see {@link IdleAnswer}); the VM must not be reused. */
  suspended?: boolean;
  /**
   * The VM was lost through no fault of the cell (its sandbox thread was stopped for another VM's cell): the
   * host may build a new VM and replay the cell from its record.
   */
  lost?: boolean;
  /**
   * With `lost`: the cell never started (its sandbox thread was busy with another VM's long cell and gave the
   * work back), so running it on a new VM repeats nothing — a busy machine, not a failing cell.
   */
  notStarted?: boolean;
}

/** One sandboxed realm running the guest runtime. */
export interface Vm {
  /**
   * Calls one of the guest runtime's private entries with text arguments; agent code cannot reach them.
   * Rejects with an error carrying `guest: { name, message }` when the guest threw, or hit the entry's time
   * limit (`timeLimitMs`, default the executor's entry limit).
   */
  invoke(entry: string, args?: readonly string[], options?: { timeLimitMs?: number }): Promise<string>;
  /** Runs a compiled cell to its end, handing it host results whenever it is idle (see {@link VmHost.idle}). */
  runCell(script: string, options: RunCellOptions): Promise<CellOutcome>;
  /** False once the VM is disposed or lost (its sandbox thread was stopped); a workspace then builds a new one. */
  readonly usable: boolean;
  /**
   * True when other work (another VM's long cell) would delay this VM's next cell; between cells a
   * workspace then builds a new VM instead, which holds the same variables (a warm VM behaves like a cold one).
   */
  readonly contended?: boolean;
  /**
   * Calls a guest runtime entry while the guest waits in a host call (reading a workspace variable for a tool),
   * without blocking the host's thread: the guest keeps waiting until the answer comes. `undefined` when the
   * guest waits in no call. Without it, tools read variables as the last cell saved them.
   */
  readDuringCall?(entry: string, args: readonly string[]): Promise<EntryAnswer | undefined>;
  /**
   * The same, answered synchronously (a tool's `ctx.variable` while it runs): the host's thread waits for it, so
   * an executor bounds the wait to a few milliseconds and answers a `TimeoutError` past it.
   */
  invokeDuringCall?(entry: string, args: readonly string[]): EntryAnswer | undefined;
  /** Bytes of guest heap in use (as of the VM's last report), when the executor can tell. */
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
  /** Frees what the executor holds (its sandbox threads); it makes no VM afterwards. A `Statek` closes the executor it made. */
  close?(): void;
}

/** Default {@link VmLimits}. */
export const DEFAULT_VM_LIMITS: Readonly<VmLimits> = Object.freeze({ memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 });
