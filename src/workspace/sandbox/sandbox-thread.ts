/**
 * @module
 * One sandbox thread as the scheduling thread sees it: the `Worker`, its shared channel, the commands in
 * flight, and the watchdog. Guest host calls arrive on the channel (`Atomics.waitAsync`, so the scheduling
 * thread never blocks) and go to the host of the VM that made them; their replies go back the same way. The one
 * wait on a guest the scheduling thread makes — a nested runtime entry, run while the guest waits in a host
 * call (`nestedInvoke`) — lasts a few milliseconds at most: past that the entry's result is dropped when it
 * comes, and the caller reads a `TimeoutError`.
 *
 * The watchdog: while guest code runs, the sandbox thread publishes the time by which it must stop (its
 * CPU clock's deadline; none while the guest waits for the host). Guest code still running a margin past that
 * deadline is stuck where the engine's interrupt handler cannot reach (a native loop inside a built-in), so
 * the thread is terminated: every VM on it is lost, and their workspaces rebuild them from their stored
 * variables.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import type { EntryAnswer } from "../executor.ts";
import { errorReply, thrownReply } from "../guest/guest-protocol.ts";
import { batchMessages } from "./one-way-messages.ts";
import { AdaptiveSpin, BATCH, ChannelState, SharedChannel } from "./shared-channel.ts";
import {
  CommandClaims, CommandMarks, nextSeq, SEQ_LIMIT, type PostedCommand, type ThreadAnswers, type ThreadCommand, type ThreadData, type ThreadResult,
} from "./thread-protocol.ts";
import { GuestEntryError, errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";
import { SandboxThreadBusyError } from "../../errors/sandbox-thread-busy-error.ts";
import { SandboxThreadLostError } from "../../errors/sandbox-thread-lost-error.ts";

// The thread's errors, where its callers look for them.
export { GuestEntryError, SandboxThreadBusyError, SandboxThreadLostError };

/** Receives the guest messages of one VM on the thread. */
export type ThreadGuestHost = (op: string, args: readonly string[]) => string | Promise<string>;

/** A nested entry in flight (see `SandboxThread.#nested`). */
interface NestedInFlight {
  vm: number;
  resolve?: (answer: NestedAnswer) => void;
  reply?: string;
}

interface InFlight {
  command: PostedCommand;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** `Atomics.waitAsync` (ES2024; the project compiles against ES2023's library). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

const workerFile = new URL(import.meta.url.endsWith(".ts") ? "./sandbox-worker.ts" : "./sandbox-worker.js", import.meta.url);

/** The longest the scheduling thread answers one thread's calls without giving other work a turn. */
const BURST_MS = 2;

/**
 * The young generation of a sandbox thread's V8 heap. What the thread allocates itself (commands, strings
 * crossing, engine handles) dies young; with V8's default the young generation grew to 60–130 MiB per thread
 * under load around ~15 MiB of live objects — most of what each sandbox thread held (20,000 suspended jobs:
 * 80–140 MiB of heap per thread, 20–25 MiB with this bound, at the same rate).
 */
const YOUNG_GENERATION_MB = 8;

/** Commands posted to a thread ahead of the one it runs (see `#posted`). */
const POSTED_AHEAD = 4;

/** A nested runtime entry's answer: its text, or the guest error it threw. */
export type NestedAnswer = EntryAnswer;

/** How a command's guest code is to be stopped: everything (`cancel`), or the cell's own code (`stop`). */
export type StopKind = "cancel" | "stop";

/**
 * A thread that has shown no progress for this long is busy with a long cell: new VMs go elsewhere, and a
 * `create` waiting behind it is taken back (making the VM on another thread costs the same).
 */
export const STALLED_MS = 100;

/**
 * A thread that has shown no progress for this long is *stuck* in a long cell (or a native loop, until the
 * watchdog stops it): a warm VM's `start` waiting behind it is taken back and its cell runs on a VM rebuilt
 * elsewhere. Far longer than {@link STALLED_MS}, because that costs a VM build (~20 ms of CPU) — on a machine
 * short of CPU a thread not scheduled for a while would otherwise turn every warm step cold.
 */
export const STUCK_MS = 1000;

/** How long guest code may run past its deadline before the watchdog stops its thread. */
export const WATCHDOG_MARGIN_MS = 500;

/** A sandbox thread. */
export class SandboxThread {
  readonly #worker: Worker;
  readonly #channel: SharedChannel;
  readonly #hosts = new Map<number, ThreadGuestHost>();
  /** Every command not answered yet: the one posted to the thread, and those waiting their turn here. */
  readonly #inFlight = new Map<number, InFlight>();
  /**
   * Commands posted to the thread, in order: the first is the one it runs now. A few are posted ahead so the
   * thread goes from one to the next without waiting for this thread; the rest wait here, where they can be
   * taken back when the thread stalls (those posted ahead can be too: the thread skips a command marked so).
   */
  readonly #posted: number[] = [];
  /** Set once the thread answered its first command (it has loaded the engine). */
  #started = false;
  /** The thread reads these to stop a command's guest code. */
  readonly #marks: CommandMarks;
  readonly #queue: number[] = [];
  /** Commands whose guest code is to be stopped when they are posted. */
  readonly #stops = new Map<number, StopKind>();
  #stallTimer: NodeJS.Timeout | undefined;
  #seq: number;
  #lost: SandboxThreadLostError | undefined;
  /** Set while the host answers a guest call of VM `vm` (`call` tells this answer from one given up on). */
  #answering: { vm: number; call: number } | undefined;
  #calls = 0;
  /**
   * A nested entry in flight that the listener takes when its result comes: one the host awaits (`resolve`), or
   * one it stopped waiting for (its result is dropped). `reply`: the call's reply, held until the entry is over.
   */
  #nested: NestedInFlight | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  /** How long to look for the guest's next call after answering one. */
  readonly #spin = new AdaptiveSpin();
  /** When the thread last showed progress (a command answered, a guest call arrived). */
  #progressAt = performance.now();
  #refs = 0;
  /** Called once when the thread is lost. */
  onLost: ((thread: SandboxThread) => void) | undefined;
  /** Called when the thread's last VM is gone. */
  onIdle: ((thread: SandboxThread) => void) | undefined;

  readonly #claims: CommandClaims;

  /** `firstSeq`: the sequence number of the first command (1; a test starts near the wrap). */
  constructor(start: Omit<ThreadData, "buffer" | "marks" | "claims"> & { firstSeq?: number }) {
    const { firstSeq = 1, ...threadStart } = start;
    if (!Number.isInteger(firstSeq) || firstSeq < 1 || firstSeq > SEQ_LIMIT) throw new RangeError(`firstSeq must be an integer from 1 to ${SEQ_LIMIT}, got ${firstSeq}`);
    this.#seq = firstSeq === 1 ? SEQ_LIMIT : firstSeq - 1;
    const buffer = SharedChannel.allocate();
    const { port1, port2 } = new MessageChannel();
    const marks = CommandMarks.allocate();
    this.#marks = new CommandMarks(marks);
    const claims = CommandClaims.allocate();
    this.#claims = new CommandClaims(claims);
    const data: ThreadData & { port: typeof port2 } = { ...threadStart, buffer, marks, claims, port: port2 };
    const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
    this.#worker = new Worker(workerFile, { workerData: data, transferList: [port2], stdout: false, stderr: false, resourceLimits });
    this.#channel = new SharedChannel(buffer, port1, "host");
    // No guest code runs until the thread says so (a new thread spends a while loading before it can).
    this.#channel.publishDeadline(Infinity);
    this.#worker.unref();
    // A worker unref'd while it starts keeps a reference once it is online: take it back then.
    this.#worker.once("online", () => {
      if (this.#refs === 0) this.#worker.unref();
    });
    this.#worker.on("message", (result: ThreadResult) => this.#settle(result));
    this.#worker.on("error", (error) => this.#lose(new SandboxThreadLostError({ message: `the sandbox thread failed: ${error.message}` })));
    this.#worker.on("exit", (code) => this.#lose(new SandboxThreadLostError({ message: `the sandbox thread exited (code ${code})` })));
    void this.#listen();
  }

  /** True once the thread was stopped or failed; its VMs are gone. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** Commands not answered yet (running or waiting their turn). */
  get busy(): number {
    return this.#inFlight.size;
  }

  /** VMs on the thread. */
  get vmCount(): number {
    return this.#hosts.size;
  }

  /**
   * True when the thread has work in flight and has shown no progress for `ms` — a cell is running long
   * there (or stuck until the watchdog stops it). Work placed behind it would wait, or be lost with it.
   */
  stalled(ms: number, except?: number): boolean {
    // A thread that has not answered anything yet is starting (loading the engine), not running a long cell.
    if (!this.#started || this.#posted.length === 0 || performance.now() - this.#progressAt < ms) return false;
    const running = this.#inFlight.get(this.#posted[0]!)?.command;
    return except === undefined || !running || !("vm" in running) || running.vm !== except;
  }

  /** Routes the guest messages of VM `vm` to `host`. */
  attach(vm: number, host: ThreadGuestHost): void {
    this.#hosts.set(vm, host);
  }

  /** Forgets VM `vm` (after its `dispose` command). */
  detach(vm: number): void {
    this.#hosts.delete(vm);
    if (this.#hosts.size === 0 && this.#inFlight.size === 0) this.onIdle?.(this);
  }

  /** Ends the thread on purpose (the pool no longer needs it). */
  close(): void {
    if (this.#lost) return;
    this.#lost = new SandboxThreadLostError({ message: "the sandbox thread was closed" });
    this.#endListener();
    void this.#worker.terminate();
  }

  /**
   * Runs a command on the thread; resolves with its answer. Commands run one at a time; while one runs, the
   * others wait here, and a `create` or `start` waiting behind a long cell is taken back with a
   * {@link SandboxThreadBusyError} (it never started), so its VM can be made elsewhere.
   */
  command<K extends ThreadCommand["kind"]>(command: Extract<ThreadCommand, { kind: K }>): Promise<ThreadAnswers[K]> {
    if (this.#lost) return Promise.reject(this.#lost);
    this.#seq = nextSeq(this.#seq);
    const posted = { ...command, seq: this.#seq } as PostedCommand;
    return new Promise((resolve, reject) => {
      this.#inFlight.set(posted.seq, { command: posted, resolve: resolve as (value: unknown) => void, reject });
      this.#queue.push(posted.seq);
      if (this.#refs++ === 0) {
        this.#worker.ref();
        this.#arm(WATCHDOG_MARGIN_MS);
      }
      this.#pump();
    });
  }

  #pump(): void {
    while (!this.#lost && this.#queue.length && this.#posted.length < POSTED_AHEAD && !(this.#posted.length && this.stalled(STALLED_MS))) {
      const seq = this.#queue.shift()!;
      const flight = this.#inFlight.get(seq)!;
      if (this.#posted.length === 0) this.#progressAt = performance.now();
      this.#posted.push(seq);
      const stop = this.#stops.get(seq);
      if (stop) {
        this.#stops.delete(seq);
        this.#mark(seq, stop);
      }
      this.#worker.postMessage(flight.command);
    }
    if (this.#posted.length > 1 || this.#queue.length) this.#watchQueue();
  }

  /** While commands wait behind a running one, takes back those that can go elsewhere once the thread stalls. */
  #watchQueue(): void {
    if (this.#stallTimer) return;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = undefined;
      if (this.#lost || (this.#posted.length < 2 && !this.#queue.length)) return;
      if (!this.stalled(STALLED_MS)) {
        this.#watchQueue();
        return;
      }
      const stuck = this.stalled(STUCK_MS);
      for (const seq of [...this.#posted.slice(1), ...this.#queue]) {
        const flight = this.#inFlight.get(seq);
        if (!flight || (flight.command.kind !== "create" && !(stuck && flight.command.kind === "start"))) continue;
        const queued = this.#queue.indexOf(seq);
        if (queued >= 0) this.#queue.splice(queued, 1);
        // Posted ahead: taken back only if the thread has not started it yet (then it skips it when it gets there,
        // and its answer is for nobody); one it started runs on here, in its VM alone.
        else if (!this.#claims.takeBack(seq)) continue;
        this.#done(flight);
        flight.reject(new SandboxThreadBusyError());
      }
      if (this.#posted.length > 1 || this.#queue.length) this.#watchQueue();
    }, STALLED_MS);
    this.#stallTimer.unref();
  }

  /**
   * Asks the thread to stop the guest code of VM `vm`'s commands at their next interrupt check: all of it
   * (`cancel`), or the cell's own code, letting the command collect the cell's variables (`stop`).
   */
  interrupt(vm: number, how: StopKind = "cancel"): void {
    for (const flight of this.#inFlight.values()) {
      if (!("vm" in flight.command) || flight.command.vm !== vm) continue;
      const seq = flight.command.seq;
      if (this.#posted.includes(seq)) this.#mark(seq, how);
      else if (how === "cancel" || !this.#stops.has(seq)) this.#stops.set(seq, how);
    }
  }

  #mark(seq: number, how: StopKind): void {
    if (how === "cancel") this.#marks.cancel(seq);
    else this.#marks.stop(seq);
  }

  /**
   * Answers the host call VM `vm`'s guest waits in now with `reply`, without waiting for the host's own answer
   * (which is dropped when it comes): a cell stopped or cancelled while a tool call of it hangs. False when the
   * guest of `vm` waits in no call.
   */
  answerNow(vm: number, reply: string): boolean {
    if (this.#lost || this.#answering?.vm !== vm) return false;
    this.#reply(this.#answering.call, reply);
    return true;
  }

  /**
   * Calls a runtime entry of VM `vm` *while its guest is blocked in a host call* (a nested call), waiting on the
   * scheduling thread for `waitMs` at most; the entry is stopped at that deadline on the sandbox thread too.
   * Returns `undefined` when the guest of `vm` is not blocked in a call now, or a `TimeoutError` when the answer
   * did not come in time (the entry's late result is dropped; the call's reply waits for it).
   */
  nestedInvoke(vm: number, entry: string, args: readonly string[], waitMs: number): NestedAnswer | undefined {
    if (this.#lost || this.#answering?.vm !== vm) return undefined;
    if (this.#nested) return NESTED_BUSY;
    if (this.#channel.state() !== ChannelState.CALL) return undefined;
    this.#channel.setNestedDeadline(SharedChannel.now() + waitMs);
    this.#channel.send("nested", vm, [entry, ...args]);
    const state = this.#channel.waitWhile(ChannelState.NESTED, waitMs);
    if (state !== ChannelState.NESTED_DONE) {
      this.#nested = { vm };
      // The watchdog covers the entry while it still runs (it might be stuck where the engine cannot stop it).
      this.#arm(WATCHDOG_MARGIN_MS);
      return { error: errorInfo(new TimeoutError({ kind: "nested", waitMs })) };
    }
    const answer = readNestedAnswer(this.#channel.read());
    // The channel stays with the host until it replies to the call that is still waiting.
    this.#channel.signal("resume");
    return answer;
  }

  /**
   * Like {@link nestedInvoke}, without blocking: resolves with the entry's answer when it comes (the scheduling
   * thread goes on meanwhile), or with a `TimeoutError` after `timeoutMs`, or `undefined` at once when the guest
   * of `vm` is not blocked in a call.
   */
  nestedInvokeAsync(vm: number, entry: string, args: readonly string[], timeoutMs: number): Promise<NestedAnswer | undefined> {
    if (this.#lost || this.#answering?.vm !== vm) return Promise.resolve(undefined);
    if (this.#nested) return Promise.resolve(NESTED_BUSY);
    if (this.#channel.state() !== ChannelState.CALL) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const nested: NestedInFlight = { vm };
      const timer = setTimeout(() => {
        delete nested.resolve;
        resolve({ error: errorInfo(new TimeoutError({ kind: "nested", waitMs: timeoutMs })) });
      }, timeoutMs);
      nested.resolve = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.#nested = nested;
      this.#channel.setNestedDeadline(SharedChannel.now() + timeoutMs);
      this.#channel.send("nested", vm, [entry, ...args]);
      this.#arm(WATCHDOG_MARGIN_MS);
    });
  }

  /** Stops the thread: its VMs are lost. */
  terminate(reason: SandboxThreadLostError): void {
    this.#lose(reason);
    void this.#worker.terminate();
  }

  #arm(afterMs: number): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(() => this.#watch(), Math.max(10, afterMs));
    this.#watchdog.unref();
  }

  /** Stops the thread when its guest code runs past its published deadline by the margin; else looks again later. */
  #watch(): void {
    this.#watchdog = undefined;
    if (this.#lost || this.#inFlight.size === 0) return;
    const deadline = this.#channel.deadline();
    const now = SharedChannel.now();
    // While the host answers a call the guest does not run — unless a nested entry runs meanwhile.
    const guestIdle = this.#answering !== undefined && this.#channel.state() !== ChannelState.NESTED;
    if (deadline === Infinity || guestIdle || now < deadline + WATCHDOG_MARGIN_MS) {
      this.#arm(deadline === Infinity ? WATCHDOG_MARGIN_MS : deadline + WATCHDOG_MARGIN_MS - now);
      return;
    }
    // The command running now is the one whose guest code overran (commands run one at a time).
    const running = this.#posted[0];
    const overran = new SandboxThreadLostError({ message: "the cell overran its CPU time limit where the engine could not stop it; its sandbox thread was stopped", overran: true });
    this.#lose(overran, running);
    void this.#worker.terminate();
  }

  /** Hands VM `vm`'s host the one-way messages of a batch, in order (their answers are nobody's). */
  #oneWay(vm: number, strings: readonly string[], count?: number): void {
    const host = this.#hosts.get(vm);
    if (!host) return;
    for (const message of batchMessages(strings, count)) {
      try {
        void host(message.op, message.args);
      } catch {
        // The host shows what it cannot print; nothing of it concerns the thread.
      }
    }
  }

  #settle(result: ThreadResult): void {
    this.#started = true;
    this.#progressAt = performance.now();
    const sent = this.#inFlight.get(result.seq)?.command;
    if (result.oneWay && sent && "vm" in sent) this.#oneWay(sent.vm, result.oneWay);
    const posted = this.#posted.indexOf(result.seq);
    if (posted >= 0) this.#posted.splice(posted, 1);
    const flight = this.#inFlight.get(result.seq);
    if (!flight) return;
    this.#done(flight);
    this.#pump();
    if (result.ok) flight.resolve(result.value);
    else flight.reject(result.guest ? new GuestEntryError({ guest: result.error }) : Object.assign(new Error(result.error.message), { name: result.error.name }));
  }

  #done(flight: InFlight): void {
    this.#inFlight.delete(flight.command.seq);
    this.#stops.delete(flight.command.seq);
    if (--this.#refs === 0) {
      this.#worker.unref();
      if (this.#watchdog) clearTimeout(this.#watchdog);
      this.#watchdog = undefined;
    }
  }

  #lose(reason: SandboxThreadLostError, culprit?: number): void {
    if (this.#lost) return;
    const collateral = new SandboxThreadLostError({ message: "the sandbox thread hosting this workspace was stopped because another job's cell overran its limit; the VM was discarded" });
    // Later commands (of VMs idle when it happened) are not the culprit's.
    this.#lost = reason.overran ? collateral : reason;
    this.#queue.length = 0;
    this.#posted.length = 0;
    for (const flight of [...this.#inFlight.values()]) {
      this.#done(flight);
      flight.reject(culprit === undefined || flight.command.seq === culprit ? reason : collateral);
    }
    this.#hosts.clear();
    this.#endListener();
    this.onLost?.(this);
  }

  // The listener sleeps in `Atomics.waitAsync` on the channel, which a stopped thread never touches again: wake
  // it so that it sees the thread is gone and ends, instead of holding the thread and its 1 MiB channel forever.
  #endListener(): void {
    Atomics.notify(this.#channel.control, 0);
  }

  /** Answers guest calls as they arrive, without ever blocking the scheduling thread. */
  async #listen(): Promise<void> {
    const control = this.#channel.control;
    let burstStart = performance.now();
    while (!this.#lost) {
      const state = Atomics.load(control, 0);
      if (state === ChannelState.NESTED_DONE && this.#nested) {
        this.#takeNested();
        continue;
      }
      if (state === ChannelState.CALL && !this.#answering) {
        this.#answer();
        // A guest in a loop calls again within microseconds: look for its next call briefly before sleeping,
        // but give the rest of the scheduling thread its turn at least every BURST_MS.
        if (performance.now() - burstStart > BURST_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          burstStart = performance.now();
          continue;
        }
        // An answer given at once (not while the host awaits something) is followed by the guest's next call.
        if (!this.#answering) this.#spin.look(() => Atomics.load(control, 0) === ChannelState.CALL);
        continue;
      }
      const waited = waitAsync(control, 0, state);
      if (waited.async) await waited.value;
      burstStart = performance.now();
    }
  }

  // A nested entry's result: to the host that awaits it, or dropped (the host stopped waiting). Then the call's
  // reply goes if the host has it, else the call waits on.
  #takeNested(): void {
    const nested = this.#nested!;
    this.#nested = undefined;
    const answer = readNestedAnswer(this.#channel.read());
    if (nested.reply === undefined) this.#channel.signal("resume");
    else this.#channel.send("reply", nested.vm, [nested.reply]);
    nested.resolve?.(answer);
  }

  #answer(): void {
    this.#progressAt = performance.now();
    const vm = this.#channel.vm();
    const batch = this.#channel.control[BATCH]!;
    const strings = this.#channel.read();
    const [op = "", ...args] = batch ? strings.slice(batch) : strings;
    const host = this.#hosts.get(vm);
    const call = ++this.#calls;
    this.#answering = { vm, call };
    if (batch) this.#oneWay(vm, strings, batch);
    let reply: string | Promise<string>;
    try {
      reply = host ? host(op, args) : errorReply("InternalError", "the VM is not connected to a workspace");
    } catch (error) {
      reply = thrownReply(error);
    }
    if (typeof reply === "string") {
      this.#reply(call, reply);
      return;
    }
    reply.then(
      (text) => this.#reply(call, text),
      (error: unknown) => this.#reply(call, thrownReply(error)),
    );
  }

  // The reply to call `call`, unless that call was answered already (`answerNow`). While a nested entry the host
  // gave up on still runs, the reply waits for it.
  #reply(call: number, reply: string): void {
    if (this.#lost || this.#answering?.call !== call) return;
    const { vm } = this.#answering;
    this.#answering = undefined;
    if (this.#nested) {
      this.#nested.reply = reply;
      return;
    }
    this.#channel.send("reply", vm, [reply]);
  }
}

const NESTED_BUSY: NestedAnswer = Object.freeze({ error: errorInfo(new TimeoutError({ kind: "nested-busy" })) });

function readNestedAnswer([kind, text = ""]: string[]): NestedAnswer {
  if (kind === "ok") return { text };
  try {
    const info = JSON.parse(text) as { name?: unknown; message?: unknown };
    return { error: { name: String(info.name ?? "Error"), message: String(info.message ?? "") } };
  } catch {
    return { error: { name: "Error", message: "unreadable answer" } };
  }
}
