/**
 * @module
 * A {@link Vm} that lives on a sandbox thread, as the scheduling thread holds it. A cell is a conversation:
 * `start` runs it until the guest is idle; then the host decides ({@link VmHost.idle}) — hand it results
 * (`deliver`), or end it (`finish`) — until the cell is over. If the thread is lost (the watchdog stopped it,
 * or it failed), the cell is reported as broken and the VM as no longer usable.
 */
import type { CellOutcome, CreateVmOptions, EntryCall, RunCellOptions, Vm, VmHost } from "../executor.ts";
import { VM_START_TIMEOUT, timeLimitOutcome, type Slice, type VmMemory } from "./engine-vm.ts";
import { STALLED_MS, placeVm } from "./sandbox-pool.ts";
import { GuestEntryError, SandboxThreadBusyError, SandboxThreadLostError, WATCHDOG_MARGIN_MS, type SandboxThread } from "./sandbox-thread.ts";
import type { EngineName } from "./thread-protocol.ts";
import { errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";

/** Makes a VM of `engine` on a sandbox thread. */
export async function createThreadVm(engine: EngineName, options: CreateVmOptions, invokeTimeMs: number): Promise<ThreadVm> {
  for (let attempt = 1; ; attempt++) {
    const { thread, vm } = placeVm({ limits: { ...options.limits }, invokeTimeMs });
    const threadVm = new ThreadVm(thread, vm, options.host, invokeTimeMs);
    try {
      threadVm.noteMemory(await thread.command({ kind: "create", vm, engine, limits: { ...options.limits }, invokeTimeMs }));
      return threadVm;
    } catch (error) {
      thread.detach(vm);
      // A thread stopped for another VM's cell takes queued work down with it (place the VM again, a few
      // times), and one running a long cell gives it back (place it again; if every thread is busy so, wait a
      // moment first — the pool adds threads meanwhile).
      if (error instanceof SandboxThreadBusyError) {
        if (attempt > 2) await new Promise((resolve) => setTimeout(resolve, Math.min(10 * attempt, 200)));
        continue;
      }
      // Beside cells in native loops, a thread may be stopped again and again, and on a starved machine a VM's
      // runtime may run out of time while it starts: keep placing the VM a while (making one has no effect).
      const retryable = error instanceof SandboxThreadLostError || (error as Error)?.name === VM_START_TIMEOUT;
      if (!retryable || attempt >= 12) throw error;
    }
  }
}

/** A VM on a sandbox thread. */
export class ThreadVm implements Vm {
  readonly #thread: SandboxThread;
  readonly #id: number;
  readonly #host: VmHost;
  readonly #invokeTimeMs: number;
  #memory: VmMemory = {};
  #disposed = false;

  constructor(thread: SandboxThread, id: number, host: VmHost, invokeTimeMs: number) {
    this.#thread = thread;
    this.#id = id;
    this.#host = host;
    this.#invokeTimeMs = invokeTimeMs;
    thread.attach(id, (op, args) => host.receive(op, args));
  }

  get usable(): boolean {
    return !this.#disposed && !this.#thread.lost;
  }

  /** True when another VM's long cell holds this VM's thread: a new VM elsewhere would not wait behind it. */
  get contended(): boolean {
    return this.#thread.stalled(STALLED_MS, this.#id);
  }

  async invoke(entry: string, args: readonly string[] = [], options: { timeLimitMs?: number } = {}): Promise<string> {
    this.#check();
    const timeLimitMs = options.timeLimitMs ?? this.#invokeTimeMs;
    try {
      return await this.#thread.command({ kind: "invoke", vm: this.#id, entry, args, timeLimitMs });
    } catch (error) {
      throw asEntryError(error);
    }
  }

  /**
   * Calls a runtime entry now, synchronously, while the guest is blocked in a host call (e.g. to read a
   * workspace variable for argument binding); `undefined` when it is not.
   */
  invokeDuringCall(entry: string, args: readonly string[]): { text: string } | { error: { name: string; message: string } } | undefined {
    if (!this.usable) return undefined;
    return this.#thread.nestedInvoke(this.#id, entry, args, this.#invokeTimeMs + WATCHDOG_MARGIN_MS);
  }

  async runCell(script: string, options: RunCellOptions): Promise<CellOutcome> {
    if (this.#disposed) throw new Error("the VM is disposed");
    const { timeLimitMs, signal } = options;
    const after: EntryCall | undefined = options.after;
    const abort = () => this.#thread.interrupt(this.#id);
    signal?.addEventListener("abort", abort);
    try {
      this.#check();
      let slice = await this.#command({ kind: "start", vm: this.#id, script, timeLimitMs, before: options.before ?? [], after });
      while (slice.state === "idle") {
        const answer = signal ? await raceAbort(this.#host.idle({ ended: slice.ended }), signal) : await this.#host.idle({ ended: slice.ended });
        if (answer === "aborted") slice = await this.#command({ kind: "cancel", vm: this.#id });
        else if ("end" in answer) slice = await this.#command({ kind: "finish", vm: this.#id, end: answer.end });
        else slice = await this.#command({ kind: "deliver", vm: this.#id, deliveries: answer.deliver });
      }
      return slice.outcome ?? {};
    } catch (error) {
      if (error instanceof SandboxThreadBusyError) {
        // The cell never started: its thread runs another VM's long cell. A new VM elsewhere runs it.
        return { error: { name: "InternalError", message: error.message }, limit: "engine", lost: true, notStarted: true, poisoned: true, broken: true };
      }
      if (error instanceof SandboxThreadLostError) {
        // The cell reads the same TimeoutError whoever stopped it; the workspace says the thread was stopped.
        const outcome: CellOutcome = error.overran
          ? timeLimitOutcome(timeLimitMs)
          : { error: { name: "InternalError", message: error.message }, limit: "engine", lost: true };
        return { ...outcome, poisoned: true, broken: true };
      }
      throw error;
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }

  async #command(command: Parameters<SandboxThread["command"]>[0]): Promise<Slice> {
    const slice = (await this.#thread.command(command)) as Slice;
    this.#memory = slice.memory;
    return slice;
  }

  #check(): void {
    if (this.#disposed) throw new Error("the VM is disposed");
    if (this.#thread.lost) throw new SandboxThreadLostError({ message: "the VM's sandbox thread was stopped" });
  }

  /** Records the memory the VM reported. */
  noteMemory(memory: VmMemory): void {
    this.#memory = memory;
  }

  memoryUsage(): number | undefined {
    return this.#memory.used;
  }

  reservedMemory(): number | undefined {
    return this.#memory.reserved;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#thread.lost) return;
    void this.#thread.command({ kind: "dispose", vm: this.#id }).catch(() => {}).finally(() => this.#thread.detach(this.#id));
  }
}

function asEntryError(error: unknown): Error {
  if (error instanceof GuestEntryError) return Object.assign(new Error(error.message), { guest: error.guest });
  if (error instanceof SandboxThreadLostError) {
    return Object.assign(new Error(error.message), { guest: errorInfo(new TimeoutError({ kind: "thread", reason: error.message })), lost: true });
  }
  return error instanceof Error ? error : new Error(String(error));
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
