/**
 * @module
 * The asynchronous half of the link between the scheduling thread and a sandbox thread: the commands the
 * scheduling thread posts (make a VM, start a cell, hand it results, …) and the results the thread posts
 * back. Commands run one at a time on the thread, in order; the guest's host calls made while one runs
 * travel on the shared channel (`shared-channel.ts`).
 */
import type { Delivery, EntryCall, GuestError, VmLimits } from "../executor.ts";
import type { CellEnd, Slice, VmMemory } from "./engine-vm.ts";

/** The engines a sandbox thread can run. */
export type EngineName = "quickjs" | "trusted";

/** Settings every sandbox thread applies (the QuickJS slot pool and ready VMs, see `quickjs/`). */
export interface ThreadSettings {
  /** Idle QuickJS module instances kept per memory bound on each thread. @default 4 */
  slotPoolMaxIdle?: number;
  /** A module instance whose memory grew past this is not reused. @default 32 MiB */
  slotPoolMaxReusedBytes?: number;
  /** QuickJS VMs made ahead of time per set of limits on each thread. @default 2 */
  readyVms?: number;
}

/** A command for a sandbox thread. */
export type ThreadCommand =
  | { kind: "configure"; settings: ThreadSettings }
  | { kind: "create"; vm: number; engine: EngineName; limits: VmLimits; invokeTimeMs: number }
  | { kind: "invoke"; vm: number; entry: string; args: readonly string[]; timeLimitMs: number }
  | { kind: "start"; vm: number; script: string; timeLimitMs: number; before: readonly EntryCall[]; after: EntryCall | undefined }
  | { kind: "deliver"; vm: number; deliveries: readonly Delivery[] }
  | { kind: "finish"; vm: number; end: CellEnd }
  | { kind: "cancel"; vm: number }
  | { kind: "dispose"; vm: number };

/** What a command answers with, by kind. */
export interface ThreadAnswers {
  configure: null;
  create: VmMemory;
  invoke: string;
  start: Slice ;
  deliver: Slice ;
  finish: Slice ;
  cancel: Slice ;
  dispose: null;
}

/** A command as posted: with its sequence number. */
export type PostedCommand = ThreadCommand & { seq: number };

/** The thread's answer to one command. */
export type ThreadResult = (
  | { seq: number; ok: true; value: unknown }
  | { seq: number; ok: false; error: GuestError; guest: boolean }
) & {
  /** One-way messages the command's VM made and no call carried yet (`one-way-messages.ts`), to hand the host first. */
  oneWay?: string[];
};

/** What a new sandbox thread is given. */
export interface ThreadData {
  buffer: SharedArrayBuffer;
  /** Marks by command sequence number (`MARK_SLOTS` slots): `seq` interrupts it. */
  marks: SharedArrayBuffer;
  /** Who won each posted command: the thread starting it or the scheduling thread taking it back (`command-claims.ts`). */
  claims: SharedArrayBuffer;
  settings: ThreadSettings;
  /** The compiled QuickJS module (`WebAssembly.Module`), when the scheduling thread has it. */
  quickjs?: object;
  /** The VM limits to make ready VMs for at once (those of the last VM made). */
  prepare?: { limits: VmLimits; invokeTimeMs: number };
}
