/**
 * @module
 * A {@link Vm} that lives on a sandbox thread, as the scheduling thread holds it. A cell is a conversation:
 * `start` runs it until the guest is idle; then the host decides ({@link VmHost.idle}) — hand it results
 * (`deliver`), or end it (`finish`) — until the cell is over. If the thread is lost (the watchdog stopped it,
 * or it failed), the cell is reported as broken and the VM as no longer usable.
 *
 * Every cell has an end: past its wall-clock limit (`RunCellOptions.wallTimeMs`, host time included) its running
 * code is stopped, a host call it waits in is answered with a `TimeoutError`, an idle cell is ended — and its
 * variables are still collected, so the step goes on.
 */
import type { CellOutcome, CreateVmOptions, EntryCall, RunCellOptions, Vm, VmHost } from "../executor.ts";
import { errorReply } from "../guest/guest-protocol.ts";
import { VM_START_TIMEOUT, timeLimitOutcome, wallLimitOutcome, type Slice, type VmMemory } from "./engine-vm.ts";
import { STALLED_MS, type SandboxPool } from "./sandbox-pool.ts";
import { GuestEntryError, SandboxThreadBusyError, SandboxThreadLostError, type NestedAnswer, type SandboxThread } from "./sandbox-thread.ts";
import type { EngineName } from "./thread-protocol.ts";
import { errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";

/**
 * The longest the scheduling thread waits for a nested runtime entry (reading a workspace variable while the
 * guest waits in a host call): every job of the worker waits with it. A read that takes longer fails with a
 * `TimeoutError`, and the VM's later reads in the same cell fail at once, so a cell can cost the scheduling
 * thread this much once at most. An ordinary read of a small variable takes ~8 ms here (thread wake-ups
 * included), so the bound leaves room for a loaded machine.
 */
export const NESTED_WAIT_MS = 50;

/** With no `wallTimeMs` given, a cell's wall-clock limit. */
const DEFAULT_WALL_TIME_MS = 60_000;

/** Makes a VM of `engine` on a thread of `pool`. */
export async function createThreadVm(pool: SandboxPool, engine: EngineName, options: CreateVmOptions, invokeTimeMs: number): Promise<ThreadVm> {
  for (let attempt = 1; ; attempt++) {
    // A new thread makes QuickJS VMs of these limits ahead of time (it has nothing to prepare for `trusted` ones).
    const { thread, vm } = pool.place(engine === "quickjs" ? { limits: { ...options.limits }, invokeTimeMs } : undefined);
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
  /** A nested read of the current cell timed out: the cell's later reads fail at once. */
  #nestedTimedOut = false;

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
   * workspace variable for argument binding); `undefined` when it is not. The scheduling thread waits
   * {@link NESTED_WAIT_MS} at most, and once per cell: past that the answer is a `TimeoutError`.
   */
  invokeDuringCall(entry: string, args: readonly string[]): NestedAnswer | undefined {
    if (!this.usable) return undefined;
    if (this.#nestedTimedOut) {
      return { error: { name: "TimeoutError", message: `an earlier read of the workspace during this cell took longer than ${NESTED_WAIT_MS} ms; the host no longer reads it while the cell runs` } };
    }
    const answer = this.#thread.nestedInvoke(this.#id, entry, args, NESTED_WAIT_MS);
    if (answer && "error" in answer && answer.error.name === "TimeoutError") {
      this.#nestedTimedOut = true;
      return { error: { name: "TimeoutError", message: `reading the workspace took longer than ${NESTED_WAIT_MS} ms (the host does not wait longer while the cell runs)` } };
    }
    return answer;
  }

  /**
   * Calls a runtime entry while the guest is blocked in a host call, without blocking the scheduling thread: the
   * host keeps the guest waiting until the answer comes (or the executor's entry limit passes: a
   * `TimeoutError`); `undefined` when the guest waits in no call.
   */
  readDuringCall(entry: string, args: readonly string[]): Promise<NestedAnswer | undefined> {
    if (!this.usable) return Promise.resolve(undefined);
    return this.#thread.nestedInvokeAsync(this.#id, entry, args, this.#invokeTimeMs);
  }

  async runCell(script: string, options: RunCellOptions): Promise<CellOutcome> {
    if (this.#disposed) throw new Error("the VM is disposed");
    const { timeLimitMs, signal } = options;
    const wallTimeMs = options.wallTimeMs ?? DEFAULT_WALL_TIME_MS;
    const after: EntryCall | undefined = options.after;
    this.#nestedTimedOut = false;
    // Stopping a cell: its running code at the next interrupt check, the host call it waits in at once.
    const cancel = () => {
      this.#thread.interrupt(this.#id, "cancel");
      this.#thread.answerNow(this.#id, errorReply("AbortError", "the cell was cancelled"));
    };
    const wall = new AbortController();
    const wallTimer = setTimeout(() => {
      wall.abort();
      this.#thread.interrupt(this.#id, "stop");
      this.#thread.answerNow(this.#id, errorReply("TimeoutError", wallLimitOutcome(wallTimeMs).error!.message));
    }, wallTimeMs);
    wallTimer.unref();
    signal?.addEventListener("abort", cancel);
    try {
      this.#check();
      let slice = await this.#command({ kind: "start", vm: this.#id, script, timeLimitMs, wallTimeMs, before: options.before ?? [], after });
      while (slice.state === "idle") {
        const answer = await raceAbort(this.#host.idle({ ended: slice.ended }), signal, wall.signal);
        if (answer === "aborted") slice = await this.#command({ kind: "cancel", vm: this.#id });
        else if (answer === "stopped") slice = await this.#command({ kind: "finish", vm: this.#id, end: "stopped" });
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
      clearTimeout(wallTimer);
      signal?.removeEventListener("abort", cancel);
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

/** `promise`'s value, or `aborted` once `signal` aborts, or `stopped` once `wall` does (whichever comes first). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, wall: AbortSignal): Promise<T | "aborted" | "stopped"> {
  if (signal?.aborted) return Promise.resolve("aborted");
  if (wall.aborted) return Promise.resolve("stopped");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    const onStop = () => resolve("stopped");
    const done = () => {
      signal?.removeEventListener("abort", onAbort);
      wall.removeEventListener("abort", onStop);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    wall.addEventListener("abort", onStop, { once: true });
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
