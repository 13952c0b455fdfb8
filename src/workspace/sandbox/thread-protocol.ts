/**
 * @module
 * The protocol between the scheduling thread and a sandbox thread, both halves in one place: both threads
 * import this module, so neither keeps a copy of the other's rules.
 *
 * - **Commands** (make a VM, start a cell, hand it results, …) go to the thread as messages, each with a
 *   sequence number; the thread runs them one at a time, in order, and answers each with a {@link ThreadResult}.
 * - **Sequence numbers** run from 1 to {@link SEQ_LIMIT} and then start over at 1 ({@link nextSeq}), so that a
 *   number and its negation always fit the `Int32Array` slots below, however long the thread lives.
 * - **Claims** ({@link CommandClaims}): a command posted ahead is either started by the thread or taken back by
 *   the scheduling thread, never both.
 * - **Marks** ({@link CommandMarks}): the scheduling thread asks the thread to stop the guest code of a command.
 * - **The channel** (`shared-channel.ts` carries it): a guest's host call, its reply, and the runtime entries
 *   the host runs while the call waits (*nested* calls), as a state word whose every change is one of
 *   {@link CHANNEL_TRANSITIONS}, made by the side the table names.
 */
import type { Delivery, EntryCall, GuestError, VmLimits } from "../executor.ts";
import type { CellEnd, Slice, VmMemory } from "./engine-vm.ts";

/** The engines a sandbox thread can run. */
export type EngineName = "quickjs" | "trusted";

/** Settings every sandbox thread applies (the QuickJS slot pool and ready VMs, see `quickjs/quickjs-engine.ts`). */
export interface ThreadSettings {
  /** Idle QuickJS module instances kept per memory bound on each thread. @default 16 */
  slotPoolMaxIdle?: number;
  /** A module instance whose VM touched more memory than this is not reused (its memory goes back). @default 8 MiB */
  slotPoolMaxReusedBytes?: number;
  /** QuickJS VMs made ahead of time per set of limits on each thread. @default 2 */
  readyVms?: number;
}

/** A command for a sandbox thread. */
export type ThreadCommand =
  | { kind: "configure"; settings: ThreadSettings }
  | { kind: "create"; vm: number; engine: EngineName; limits: VmLimits; invokeTimeMs: number }
  | { kind: "invoke"; vm: number; entry: string; args: readonly string[]; timeLimitMs: number }
  | { kind: "start"; vm: number; script: string; timeLimitMs: number; wallTimeMs: number; before: readonly EntryCall[]; after: EntryCall | undefined }
  | { kind: "deliver"; vm: number; deliveries: readonly Delivery[] }
  | { kind: "finish"; vm: number; end: CellEnd }
  | { kind: "cancel"; vm: number }
  | { kind: "dispose"; vm: number };

/** What a command answers with, by kind. */
export interface ThreadAnswers {
  configure: null;
  create: VmMemory;
  invoke: string;
  start: Slice;
  deliver: Slice;
  finish: Slice;
  cancel: Slice;
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
  /** The thread's {@link CommandMarks}. */
  marks: SharedArrayBuffer;
  /** The thread's {@link CommandClaims}. */
  claims: SharedArrayBuffer;
  settings: ThreadSettings;
  /** The compiled QuickJS module (`WebAssembly.Module`), when the scheduling thread has it. */
  quickjs?: object;
  /** The VM limits to make ready VMs for at once (those of the last VM made). */
  prepare?: { limits: VmLimits; invokeTimeMs: number };
}

/** The largest sequence number; the one after it is 1. Both it and its negation fit an `Int32Array` slot. */
export const SEQ_LIMIT = 2 ** 31 - 1;

/** The sequence number after `seq` (1 after {@link SEQ_LIMIT}; never 0, which stands for "no command"). */
export function nextSeq(seq: number): number {
  return seq >= SEQ_LIMIT || seq < 1 ? 1 : seq + 1;
}

/** Slots of the claims and marks, by sequence number modulo this; far more than commands in flight on one thread. */
export const COMMAND_SLOTS = 256;

/**
 * Who decides whether a command posted ahead to a sandbox thread runs: the thread, when it gets to the command,
 * or the scheduling thread, when it takes the command back because the thread stalled. Both race on one shared
 * slot per command with a compare-and-swap, so exactly one of them wins. Without it, a thread could start a
 * `start` the scheduling thread had just given up on — the cell would then run in two VMs at once, both feeding
 * one workspace's journal.
 */
export class CommandClaims {
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Int32Array(buffer);
  }

  /** A new buffer of claim slots for one thread. */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(COMMAND_SLOTS * 4);
  }

  /** The thread, about to run command `seq`: true when it may (it was not taken back first). */
  start(seq: number): boolean {
    return this.#claim(seq, seq);
  }

  /** The scheduling thread: true when command `seq` is taken back (the thread had not started it). */
  takeBack(seq: number): boolean {
    return this.#claim(seq, -seq);
  }

  // A slot holds `seq` once started, `-seq` once taken back, or an earlier command's claim before either.
  #claim(seq: number, mine: number): boolean {
    checkSeq(seq);
    const index = seq % COMMAND_SLOTS;
    for (;;) {
      const seen = Atomics.load(this.#slots, index);
      if (seen === seq || seen === -seq) return seen === mine;
      if (Atomics.compareExchange(this.#slots, index, seen, mine) === seen) return true;
    }
  }
}

/**
 * The scheduling thread's requests to stop the guest code of a command, read by the sandbox thread's interrupt
 * check. `cancel` stops everything the command runs (the step was cancelled); `stop` stops the cell's own code
 * but lets the command finish its work outside the cell (collecting the variables: the wall-clock limit).
 * A slot holds `seq` (cancel), `-seq` (stop) or an earlier command's mark.
 */
export class CommandMarks {
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Int32Array(buffer);
  }

  /** A new buffer of mark slots for one thread. */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(COMMAND_SLOTS * 4);
  }

  /** Asks for command `seq` to be cancelled. */
  cancel(seq: number): void {
    checkSeq(seq);
    Atomics.store(this.#slots, seq % COMMAND_SLOTS, seq);
  }

  /** Asks for the cell code of command `seq` to stop (a cancel already asked for stays). */
  stop(seq: number): void {
    checkSeq(seq);
    const index = seq % COMMAND_SLOTS;
    for (;;) {
      const seen = Atomics.load(this.#slots, index);
      if (seen === seq || Atomics.compareExchange(this.#slots, index, seen, -seq) === seen) return;
    }
  }

  /** True when command `seq` is to be cancelled. */
  cancelled(seq: number): boolean {
    return seq > 0 && Atomics.load(this.#slots, seq % COMMAND_SLOTS) === seq;
  }

  /** True when the cell code of command `seq` is to stop (cancelled or stopped). */
  stopped(seq: number): boolean {
    if (seq <= 0) return false;
    const mark = Atomics.load(this.#slots, seq % COMMAND_SLOTS);
    return mark === seq || mark === -seq;
  }
}

function checkSeq(seq: number): void {
  if (!Number.isInteger(seq) || seq < 1 || seq > SEQ_LIMIT) throw new RangeError(`a command's sequence number is an integer from 1 to ${SEQ_LIMIT}, got ${seq}`);
}

/** The channel's states: whose turn it is. */
export const ChannelState = Object.freeze({
  /** Nothing in flight (the sandbox thread's turn). */
  IDLE: 0,
  /** A guest host call waits for its reply (the host's turn). */
  CALL: 1,
  /** The reply to the call (the sandbox thread's turn). */
  REPLY: 2,
  /** While the call waits, run this runtime entry first (the sandbox thread's turn). */
  NESTED: 3,
  /** The entry's result (the host's turn). */
  NESTED_DONE: 4,
});

/** A channel event: what one side does. */
export type ChannelEvent = "call" | "reply" | "nested" | "nested-done" | "resume" | "ack";

/** The side that makes an event. */
export type ChannelSide = "sandbox" | "host";

/** Every change of the channel's state: `[from, event, to, the side that makes it]`. */
export const CHANNEL_TRANSITIONS: ReadonlyArray<readonly [number, ChannelEvent, number, ChannelSide]> = Object.freeze([
  [ChannelState.IDLE, "call", ChannelState.CALL, "sandbox"],
  [ChannelState.CALL, "reply", ChannelState.REPLY, "host"],
  [ChannelState.CALL, "nested", ChannelState.NESTED, "host"],
  [ChannelState.NESTED, "nested-done", ChannelState.NESTED_DONE, "sandbox"],
  // The host took the entry's result; the call still waits.
  [ChannelState.NESTED_DONE, "resume", ChannelState.CALL, "host"],
  // The host took a late entry's result and replies to the call at once.
  [ChannelState.NESTED_DONE, "reply", ChannelState.REPLY, "host"],
  [ChannelState.REPLY, "ack", ChannelState.IDLE, "sandbox"],
] as const);

/** A side changed the channel in a way {@link CHANNEL_TRANSITIONS} does not allow: a bug, never a guest's doing. */
export class ChannelProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChannelProtocolError";
  }
}

const TRANSITIONS = new Map(CHANNEL_TRANSITIONS.map(([from, event, to, side]) => [`${from}:${event}`, { to, side }]));

/** The state `event` by `side` leads to from `state`; throws a {@link ChannelProtocolError} when it may not happen. */
export function channelTransition(state: number, event: ChannelEvent, side: ChannelSide): number {
  const found = TRANSITIONS.get(`${state}:${event}`);
  if (!found || found.side !== side) throw new ChannelProtocolError(`the ${side} side may not '${event}' in channel state ${state}`);
  return found.to;
}
