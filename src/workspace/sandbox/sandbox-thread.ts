/**
 * @module
 * One sandbox thread as the scheduling thread sees it: the `Worker`, its shared channel, the commands in
 * flight, and the watchdog. Guest host calls arrive on the channel (`Atomics.waitAsync`, so the scheduling
 * thread never blocks) and go to the host of the VM that made them; their replies go back the same way.
 *
 * The watchdog: while guest code runs, the sandbox thread publishes the time by which it must stop (its
 * CPU clock's deadline; none while the guest waits for the host). Guest code still running a margin past that
 * deadline is stuck where the engine's interrupt handler cannot reach (a native loop inside a built-in), so
 * the thread is terminated: every VM on it is lost, and their workspaces rebuild them from their stored
 * variables.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import { errorReply, thrownReply } from "../guest/guest-protocol.ts";
import { batchMessages } from "./one-way-messages.ts";
import { CommandClaims } from "./command-claims.ts";
import { AdaptiveSpin, BATCH, CALL, NESTED, NESTED_DONE, REPLY, SharedChannel } from "./shared-channel.ts";
import type { PostedCommand, ThreadAnswers, ThreadCommand, ThreadData, ThreadResult } from "./thread-protocol.ts";
import { GuestEntryError, errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";
import { SandboxThreadBusyError } from "../../errors/sandbox-thread-busy-error.ts";
import { SandboxThreadLostError } from "../../errors/sandbox-thread-lost-error.ts";

// The thread's errors, where its callers look for them.
export { GuestEntryError, SandboxThreadBusyError, SandboxThreadLostError };

/** Receives the guest messages of one VM on the thread. */
export type ThreadGuestHost = (op: string, args: readonly string[]) => string | Promise<string>;

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
/** Slots of the shared interrupt marks by sequence number; far more than commands in flight at once. */
export const MARK_SLOTS = 256;

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
  /** Marks, by sequence number, commands to skip (`-seq`) or to interrupt (`seq`); read by the thread. */
  readonly #marks: Int32Array;
  readonly #queue: number[] = [];
  /** Commands whose guest code is to be interrupted when they start. */
  readonly #interrupts = new Set<number>();
  #stallTimer: NodeJS.Timeout | undefined;
  #seq = 0;
  #lost: SandboxThreadLostError | undefined;
  /** Set while the host answers a guest call of VM `vm`. */
  #answering: { vm: number } | undefined;
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

  constructor(start: Omit<ThreadData, "buffer" | "marks" | "claims">) {
    const buffer = SharedChannel.allocate();
    const { port1, port2 } = new MessageChannel();
    const marks = new SharedArrayBuffer(MARK_SLOTS * 4);
    this.#marks = new Int32Array(marks);
    const claims = CommandClaims.allocate();
    this.#claims = new CommandClaims(claims);
    const data: ThreadData & { port: typeof port2 } = { ...start, buffer, marks, claims, port: port2 };
    const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
    this.#worker = new Worker(workerFile, { workerData: data, transferList: [port2], stdout: false, stderr: false, resourceLimits });
    this.#channel = new SharedChannel(buffer, port1);
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
    const posted = { ...command, seq: ++this.#seq } as PostedCommand;
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
      if (this.#interrupts.delete(seq)) Atomics.store(this.#marks, seq % MARK_SLOTS, seq);
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

  /** Asks the thread to stop the guest code of VM `vm`'s command at its next interrupt check. */
  interrupt(vm: number): void {
    for (const flight of this.#inFlight.values()) {
      if (!("vm" in flight.command) || flight.command.vm !== vm) continue;
      if (this.#posted.includes(flight.command.seq)) Atomics.store(this.#marks, flight.command.seq % MARK_SLOTS, flight.command.seq);
      else this.#interrupts.add(flight.command.seq);
    }
  }

  /**
   * Calls a runtime entry of VM `vm` *while its guest is blocked in a host call* (a nested call), blocking the
   * scheduling thread until it answers or `timeoutMs` passes. Returns `undefined` when the guest of `vm` is
   * not blocked in a call now.
   */
  nestedInvoke(vm: number, entry: string, args: readonly string[], timeoutMs: number): { text: string } | { error: { name: string; message: string } } | undefined {
    if (this.#lost || this.#answering?.vm !== vm || this.#channel.state() !== CALL) return undefined;
    this.#channel.send(NESTED, vm, [entry, ...args]);
    const state = this.#channel.waitWhile(NESTED, timeoutMs);
    if (state !== NESTED_DONE) {
      this.terminate(new SandboxThreadLostError({ message: "a runtime entry did not answer within its time limit; the sandbox thread was stopped" }));
      return { error: errorInfo(new TimeoutError({ kind: "read" })) };
    }
    const [kind, text = ""] = this.#channel.read();
    // The channel stays with the host until it replies to the call that is still waiting.
    this.#channel.set(CALL);
    if (kind === "ok") return { text };
    try {
      const info = JSON.parse(text) as { name?: unknown; message?: unknown };
      return { error: { name: String(info.name ?? "Error"), message: String(info.message ?? "") } };
    } catch {
      return { error: { name: "Error", message: "unreadable answer" } };
    }
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
    if (deadline === Infinity || this.#answering || now < deadline + WATCHDOG_MARGIN_MS) {
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
    this.#interrupts.delete(flight.command.seq);
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
      if (state === CALL && !this.#answering) {
        this.#answer();
        // A guest in a loop calls again within microseconds: look for its next call briefly before sleeping,
        // but give the rest of the scheduling thread its turn at least every BURST_MS.
        if (performance.now() - burstStart > BURST_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          burstStart = performance.now();
          continue;
        }
        // An answer given at once (not while the host awaits something) is followed by the guest's next call.
        if (!this.#answering) this.#spin.look(() => Atomics.load(control, 0) === CALL);
        continue;
      }
      const waited = waitAsync(control, 0, state);
      if (waited.async) await waited.value;
      burstStart = performance.now();
    }
  }

  #answer(): void {
    this.#progressAt = performance.now();
    const vm = this.#channel.vm();
    const batch = this.#channel.control[BATCH]!;
    const strings = this.#channel.read();
    const [op = "", ...args] = batch ? strings.slice(batch) : strings;
    const host = this.#hosts.get(vm);
    this.#answering = { vm };
    if (batch) this.#oneWay(vm, strings, batch);
    let reply: string | Promise<string>;
    try {
      reply = host ? host(op, args) : errorReply("InternalError", "the VM is not connected to a workspace");
    } catch (error) {
      reply = thrownReply(error);
    }
    if (typeof reply === "string") {
      this.#reply(vm, reply);
      return;
    }
    reply.then(
      (text) => this.#reply(vm, text),
      (error: unknown) => this.#reply(vm, thrownReply(error)),
    );
  }

  #reply(vm: number, reply: string): void {
    if (this.#lost) return;
    this.#answering = undefined;
    this.#channel.send(REPLY, vm, [reply]);
  }
}
