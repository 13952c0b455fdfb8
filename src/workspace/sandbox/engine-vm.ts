/**
 * @module
 * What a sandbox thread asks of the engine that runs one VM (QuickJS or `node:vm`), and the shape of the
 * answers it sends back to the scheduling thread. A cell runs in *slices*: the first one evaluates the cell,
 * each later one hands the guest host results; every slice runs until the guest has nothing left to do and
 * ends with the guest idle (the host decides what comes next) or with the cell over.
 */
import type { CellOutcome, Delivery, EntryCall, GuestError } from "../executor.ts";
import { EntryError } from "../../errors/entry-error.ts";
import { errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";

// Thrown by `EngineVm.call`, where the engines look for it.
export { EntryError };

/** Answers one guest message on the sandbox thread (synchronously: the guest waits). */
export type GuestLink = (op: string, args: string[]) => string;

/** How one slice of a cell ended. */
export interface Slice {
  /** `idle`: the guest waits for the host's next results; `over`: the cell is over (see `outcome`). */
  state: "idle" | "over";
  /** The cell's code has finished (its top-level promise settled without error). */
  ended: boolean;
  /** The outcome, once the cell is over. */
  outcome?: CellOutcome;
  /** CPU time the cell has used so far, in milliseconds. */
  cpuMs: number;
  /** Guest heap in use and bytes the VM holds, after the slice. */
  memory: VmMemory;
}

/** A VM's memory as it reports it. */
export interface VmMemory {
  used?: number;
  reserved?: number;
}

/** How the host ends a cell that is idle (`stopped`: its wall-clock time is up). */
export type CellEnd = "finished" | "stalled" | "suspended" | "stopped";

/** An engine running one VM on a sandbox thread. Every method is synchronous. */
export interface EngineVm {
  /** Calls a runtime entry; throws an {@link EntryError} for a guest error. */
  invoke(entry: string, args: readonly string[], timeLimitMs?: number): string;
  /**
   * Calls a runtime entry while the guest waits in a host call (a nested call), on the cell's clock and stopped
   * at `untilAbsoluteMs` (`performance.timeOrigin + performance.now()` time) at the latest; throws an
   * {@link EntryError} for a guest error.
   */
  invokeNested(entry: string, args: readonly string[], untilAbsoluteMs: number): string;
  /**
   * Starts a cell: runs `before`, then the script, with `timeLimitMs` of CPU time in all; `wallTimeMs` is its
   * wall-clock limit (the host stops it, see {@link wallLimitOutcome}).
   */
  start(script: string, timeLimitMs: number, wallTimeMs: number, before: readonly EntryCall[], after: EntryCall | undefined): Slice;
  /** Hands the guest host results, in order (the guest's jobs run after each). */
  deliver(deliveries: readonly Delivery[]): Slice;
  /** Ends an idle cell as the host decided, and makes its `after` call. */
  finish(end: CellEnd): Slice;
  /** Stops the current cell: it is over with `AbortError`. */
  cancel(): Slice;
  /** Measures the VM's memory now. */
  memory(): VmMemory;
  /** The VM's memory as last measured, without measuring again unless it is stale (cheap). */
  lastMemory(): VmMemory;
  dispose(): void;
}

/** `the cell used more than its 10 s CPU time limit and was stopped` */
export function timeLimitOutcome(timeLimitMs: number): CellOutcome {
  return { error: errorInfo(new TimeoutError({ kind: "cell", limitMs: timeLimitMs })), poisoned: true, limit: "time" };
}

/** `the cell ran for more than its 60 s wall-clock limit …`: the host stopped it (the step goes on). */
export function wallLimitOutcome(wallTimeMs: number): CellOutcome {
  return { error: errorInfo(new TimeoutError({ kind: "cell-wall", limitMs: wallTimeMs })), poisoned: true, limit: "time" };
}

/** The error a nested entry reads when it ran past the deadline the host gave it. */
export const NESTED_TIMEOUT: GuestError = Object.freeze(errorInfo(new TimeoutError({ kind: "nested-deadline" })));

/** The outcome of a cell whose code never finished and that waits for nothing the host can deliver. */
export const STALLED: GuestError = Object.freeze({ name: "Error", message: "the cell awaits a promise that can never settle" });

/** The outcome of a cancelled cell. */
export const CANCELLED_OUTCOME: CellOutcome = Object.freeze({ error: { name: "AbortError", message: "the cell was cancelled" }, poisoned: true, limit: "cancelled" as const });

/** Counts the pending replies the guest was given and not yet handed results for. */
export function isPendingReply(reply: string): boolean {
  return reply.charCodeAt(0) === 112 /* p */;
}

/** The name of the error of a VM whose guest runtime ran out of time while starting (`createThreadVm` makes it again). */
export const VM_START_TIMEOUT = "VmStartTimeout";
