/**
 * @module
 * The entry point of a sandbox thread (`node:worker_threads`). It hosts many VMs — QuickJS or `node:vm` —
 * and runs the scheduling thread's commands one at a time. A guest's host call blocks this thread on the
 * shared channel until the scheduling thread answers; while blocked it still runs the runtime entries the
 * host asks for (nested calls). Nothing here decides policy: the host answers every guest message, and the
 * watchdog on the scheduling thread stops this whole thread when a cell overruns its limit in a way the
 * engine cannot see.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { EngineVm } from "./engine-vm.ts";
import { EntryError } from "./engine-vm.ts";
import { CommandClaims } from "./command-claims.ts";
import { OneWayMessages } from "./one-way-messages.ts";
import { AdaptiveSpin, BATCH, CALL, IDLE, NESTED, NESTED_DONE, REPLY, STATE, SharedChannel } from "./shared-channel.ts";
import type { PostedCommand, ThreadData, ThreadResult, ThreadSettings } from "./thread-protocol.ts";
import { configureReadyVms, prepareReadyVms, takeVm } from "../quickjs/quickjs-ready-vms.ts";
import { useCompiledQuickJs } from "../quickjs/quickjs-wasm.ts";
import { configureSlotPool } from "../quickjs/quickjs-slot-pool.ts";
import { TrustedVm } from "../trusted/trusted-vm.ts";

const data = workerData as ThreadData & { port: MessagePort };
const channel = new SharedChannel(data.buffer, data.port);
const vms = new Map<number, EngineVm>();
/** How long a guest's thread looks for the host's answer before it sleeps. */
const spin = new AdaptiveSpin();
/** The sequence number of the command running now (0: none); the host interrupts it by writing it. */
let current = 0;

const marks = new Int32Array(data.marks);
const claims = new CommandClaims(data.claims);
const mark = (seq: number) => Atomics.load(marks, seq % marks.length);
const interrupted = () => current !== 0 && mark(current) === current;
const publish = (deadline: number) => channel.publishDeadline(deadline);

/**
 * Messages whose answer the guest does not wait for (`print` and its kin, the engines' `begin`): kept here
 * and sent ahead of the VM's next call, or with the result of the command that made them — so a cell that
 * only prints costs no crossing at all. Their order with the other messages is kept.
 */
const oneWay = new OneWayMessages();

/** A guest host call: written to the channel; blocks until the host replies, running nested entries meanwhile. */
function callHost(vm: number, op: string, args: string[]): string {
  if (oneWay.keep(vm, op, args)) return "";
  const batch = oneWay.take(vm);
  channel.control[BATCH] = batch.length;
  channel.send(CALL, vm, batch.length ? [...batch, op, ...args] : [op, ...args]);
  let waiting = CALL;
  // Most answers take the host a few microseconds: look for one briefly before sleeping on the futex.
  spin.look(() => Atomics.load(channel.control, STATE) !== CALL);
  for (;;) {
    const state = channel.waitWhile(waiting);
    if (state === REPLY) {
      const reply = channel.read()[0] ?? "";
      channel.set(IDLE);
      return reply;
    }
    if (state === NESTED) {
      const [entry = "", ...rest] = channel.read();
      channel.send(NESTED_DONE, vm, nested(channel.vm(), entry, rest));
      waiting = NESTED_DONE;
      continue;
    }
    waiting = state;
  }
}

function nested(vm: number, entry: string, args: string[]): string[] {
  const target = vms.get(vm);
  if (!target) return ["e", JSON.stringify({ name: "Error", message: "the VM is gone" })];
  try {
    return ["ok", target.invoke(entry, args)];
  } catch (error) {
    const guest = error instanceof EntryError ? error.guest : { name: "InternalError", message: String((error as Error)?.message ?? error) };
    return ["e", JSON.stringify(guest)];
  }
}

function configure(settings: ThreadSettings): void {
  if (settings.slotPoolMaxIdle !== undefined || settings.slotPoolMaxReusedBytes !== undefined) {
    configureSlotPool({
      ...(settings.slotPoolMaxIdle !== undefined ? { maxIdle: settings.slotPoolMaxIdle } : {}),
      ...(settings.slotPoolMaxReusedBytes !== undefined ? { maxReusedBytes: settings.slotPoolMaxReusedBytes } : {}),
    });
  }
  if (settings.readyVms !== undefined) configureReadyVms(settings.readyVms);
}

function vmNamed(id: number): EngineVm {
  const vm = vms.get(id);
  if (!vm) throw new Error(`no VM ${id} on this sandbox thread`);
  return vm;
}

async function run(command: PostedCommand): Promise<unknown> {
  switch (command.kind) {
    case "configure":
      configure(command.settings);
      return null;
    case "create": {
      const link = (op: string, args: string[]) => callHost(command.vm, op, args);
      const vm = command.engine === "trusted"
        ? new TrustedVm(link, command.invokeTimeMs, interrupted, publish)
        : (await takeVm(command.limits, command.invokeTimeMs)).connect(link, interrupted, publish);
      vms.set(command.vm, vm);
      return vm.lastMemory();
    }
    case "invoke":
      return vmNamed(command.vm).invoke(command.entry, command.args, command.timeLimitMs);
    case "start":
      oneWay.take(command.vm);
      return vmNamed(command.vm).start(command.script, command.timeLimitMs, command.before, command.after);
    case "deliver":
      return vmNamed(command.vm).deliver(command.deliveries);
    case "finish":
      return vmNamed(command.vm).finish(command.end);
    case "cancel":
      return vmNamed(command.vm).cancel();
    case "dispose":
      vms.get(command.vm)?.dispose();
      vms.delete(command.vm);
      return null;
  }
}

// Commands run one at a time, in the order they were posted (a VM's creation may wait for a new instance).
let queue: Promise<void> = Promise.resolve();
parentPort!.on("message", (command: PostedCommand) => {
  queue = queue.then(async () => {
    current = command.seq;
    let result: ThreadResult;
    if (!claims.start(command.seq)) {
      // Taken back while it waited here (its thread stalled): it never runs.
      current = 0;
      parentPort!.postMessage({ seq: command.seq, ok: false, error: { name: "SandboxThreadBusyError", message: "taken back" }, guest: false } satisfies ThreadResult);
      return;
    }
    try {
      result = { seq: command.seq, ok: true, value: await run(command) };
    } catch (error) {
      const guest = error instanceof EntryError;
      const info = guest ? error.guest : { name: (error as Error)?.name ?? "Error", message: String((error as Error)?.message ?? error) };
      result = { seq: command.seq, ok: false, error: info, guest };
    } finally {
      current = 0;
    }
    if ("vm" in command) {
      const batch = oneWay.take(command.vm);
      if (batch.length) result.oneWay = batch;
    }
    parentPort!.postMessage(result);
  });
});

configure(data.settings);
channel.publishDeadline(Infinity);
if (data.quickjs) useCompiledQuickJs(data.quickjs);
// Ready before it is needed: the first VM on a new thread (a replacement for a stopped one) costs no more than any other.
if (data.prepare) prepareReadyVms(data.prepare.limits, data.prepare.invokeTimeMs);
