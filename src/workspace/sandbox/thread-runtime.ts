/**
 * @module
 * The sandbox thread's side of the protocol (`thread-protocol.ts`): it hosts many VMs — QuickJS or `node:vm` —
 * and runs the scheduling thread's commands one at a time. A guest's host call blocks this thread on the shared
 * channel until the scheduling thread answers; while blocked it still runs the runtime entries the host asks for
 * (nested calls), each stopped at the deadline the host gave it. Nothing here decides policy: the host answers
 * every guest message, and the watchdog on the scheduling thread stops this whole thread when a cell overruns
 * its limit in a way the engine cannot see.
 */
import type { MessagePort } from "node:worker_threads";
import { errorReply } from "../guest/guest-protocol.ts";
import { EntryError, type EngineVm } from "./engine-vm.ts";
import { OneWayMessages } from "./one-way-messages.ts";
import { AdaptiveSpin, BATCH, ChannelState, STATE, SharedChannel } from "./shared-channel.ts";
import { CommandClaims, CommandMarks, type PostedCommand, type ThreadData, type ThreadResult } from "./thread-protocol.ts";
import { QuickJsEngine } from "../quickjs/quickjs-engine.ts";
import { TrustedVm } from "../trusted/trusted-vm.ts";

/** What the thread's entry gives its runtime. */
export interface ThreadRuntimeOptions {
  data: ThreadData & { port: MessagePort };
  /** Posts a command's result to the scheduling thread. */
  post: (result: ThreadResult) => void;
  /** Runs a garbage collection of this thread's heap (memory of dropped module instances goes back). */
  collect?: () => Promise<void>;
}

/** One sandbox thread's VMs and its end of the protocol. */
export class ThreadRuntime {
  readonly #channel: SharedChannel;
  readonly #vms = new Map<number, EngineVm>();
  /** How long a guest's thread looks for the host's answer before it sleeps. */
  readonly #spin = new AdaptiveSpin();
  /** The sequence number of the command running now (0: none); the host stops it by marking it. */
  #current = 0;
  readonly #marks: CommandMarks;
  readonly #claims: CommandClaims;
  /**
   * Messages whose answer the guest does not wait for (`print` and its kin, the engines' `begin`): kept here
   * and sent ahead of the VM's next call, or with the result of the command that made them — so a cell that
   * only prints costs no crossing at all. Their order with the other messages is kept.
   */
  readonly #oneWay = new OneWayMessages();
  /** The QuickJS parts, made when the thread first needs them (a thread of `trusted` VMs never does). */
  #engine: QuickJsEngine | undefined;
  readonly #makeEngine: () => QuickJsEngine;
  readonly #post: (result: ThreadResult) => void;
  // Commands run one at a time, in the order they were posted (a VM's creation may wait for a new instance).
  #queue: Promise<void> = Promise.resolve();

  constructor(options: ThreadRuntimeOptions) {
    const { data } = options;
    this.#channel = new SharedChannel(data.buffer, data.port, "sandbox");
    this.#marks = new CommandMarks(data.marks);
    this.#claims = new CommandClaims(data.claims);
    this.#post = options.post;
    this.#makeEngine = () => new QuickJsEngine({
      ...(data.quickjs ? { compiled: data.quickjs } : {}),
      settings: data.settings,
      ...(options.collect ? { collect: options.collect } : {}),
    });
    this.#channel.publishDeadline(Infinity);
    // Ready before it is needed: the first VM on a new thread (a replacement for a stopped one) costs no more than any other.
    if (data.prepare) this.#quickjs().ready.prepare(data.prepare.limits, data.prepare.invokeTimeMs);
  }

  #quickjs(): QuickJsEngine {
    this.#engine ??= this.#makeEngine();
    return this.#engine;
  }

  /** Queues a command from the scheduling thread. */
  receive(command: PostedCommand): void {
    this.#queue = this.#queue.then(() => this.#runCommand(command));
  }

  readonly #cancelled = () => this.#marks.cancelled(this.#current);
  readonly #stopped = () => this.#marks.stopped(this.#current) && !this.#marks.cancelled(this.#current);
  readonly #publish = (deadline: number) => this.#channel.publishDeadline(deadline);

  async #runCommand(command: PostedCommand): Promise<void> {
    if (!this.#claims.start(command.seq)) {
      // Taken back while it waited here (its thread stalled): it never runs.
      this.#post({ seq: command.seq, ok: false, error: { name: "SandboxThreadBusyError", message: "taken back" }, guest: false });
      return;
    }
    this.#current = command.seq;
    let result: ThreadResult;
    try {
      result = { seq: command.seq, ok: true, value: await this.#run(command) };
    } catch (error) {
      const guest = error instanceof EntryError;
      const info = guest ? error.guest : { name: (error as Error)?.name ?? "Error", message: String((error as Error)?.message ?? error) };
      result = { seq: command.seq, ok: false, error: info, guest };
    } finally {
      this.#current = 0;
    }
    if ("vm" in command) {
      const batch = this.#oneWay.take(command.vm);
      if (batch.length) result.oneWay = batch;
    }
    this.#post(result);
  }

  async #run(command: PostedCommand): Promise<unknown> {
    switch (command.kind) {
      case "configure":
        this.#engine?.configure(command.settings);
        return null;
      case "create": {
        const link = (op: string, args: string[]) => this.#callHost(command.vm, op, args);
        const vm = command.engine === "trusted"
          ? new TrustedVm(link, command.invokeTimeMs, this.#cancelled, this.#publish, this.#stopped)
          : (await this.#quickjs().takeVm(command.limits, command.invokeTimeMs)).connect(link, this.#cancelled, this.#publish, this.#stopped);
        this.#vms.set(command.vm, vm);
        return vm.lastMemory();
      }
      case "invoke":
        return this.#vm(command.vm).invoke(command.entry, command.args, command.timeLimitMs);
      case "start":
        this.#oneWay.take(command.vm);
        return this.#vm(command.vm).start(command.script, command.timeLimitMs, command.wallTimeMs, command.before, command.after);
      case "deliver":
        return this.#vm(command.vm).deliver(command.deliveries);
      case "finish":
        return this.#vm(command.vm).finish(command.end);
      case "cancel":
        return this.#vm(command.vm).cancel();
      case "dispose":
        this.#vms.get(command.vm)?.dispose();
        this.#vms.delete(command.vm);
        return null;
    }
  }

  #vm(id: number): EngineVm {
    const vm = this.#vms.get(id);
    if (!vm) throw new Error(`no VM ${id} on this sandbox thread`);
    return vm;
  }

  /** A guest host call: written to the channel; blocks until the host replies, running nested entries meanwhile. */
  #callHost(vm: number, op: string, args: string[]): string {
    if (this.#oneWay.keep(vm, op, args)) return "";
    const channel = this.#channel;
    // Guest code the host runs while the guest waits in a call (a nested entry: a getter read for the host)
    // cannot call the host in turn: the one channel is taken by the call that waits.
    if (channel.state() !== ChannelState.IDLE) return errorReply("InternalError", "the host cannot be called while it reads the workspace");
    const batch = this.#oneWay.take(vm);
    channel.control[BATCH] = batch.length;
    channel.send("call", vm, batch.length ? [...batch, op, ...args] : [op, ...args]);
    let waiting: number = ChannelState.CALL;
    // Most answers take the host a few microseconds: look for one briefly before sleeping on the futex.
    this.#spin.look(() => Atomics.load(channel.control, STATE) !== ChannelState.CALL);
    for (;;) {
      const state = channel.waitWhile(waiting);
      if (state === ChannelState.REPLY) {
        const reply = channel.read()[0] ?? "";
        channel.signal("ack");
        return reply;
      }
      if (state === ChannelState.NESTED) {
        const [entry = "", ...rest] = channel.read();
        channel.send("nested-done", vm, this.#nested(channel.vm(), entry, rest, channel.nestedDeadline()));
        waiting = ChannelState.NESTED_DONE;
        continue;
      }
      waiting = state;
    }
  }

  #nested(vm: number, entry: string, args: string[], untilAbsoluteMs: number): string[] {
    const target = this.#vms.get(vm);
    if (!target) return ["e", JSON.stringify({ name: "Error", message: "the VM is gone" })];
    try {
      return ["ok", target.invokeNested(entry, args, untilAbsoluteMs)];
    } catch (error) {
      const guest = error instanceof EntryError ? error.guest : { name: "InternalError", message: String((error as Error)?.message ?? error) };
      return ["e", JSON.stringify(guest)];
    }
  }
}
