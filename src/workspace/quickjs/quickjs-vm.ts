/**
 * @module
 * One QuickJS-NG VM: a runtime and context inside a slot (`quickjs-slot.ts`) that it owns while it lives,
 * with the guest runtime installed. It enforces the limits the engine can: CPU time through the interrupt
 * handler, stack depth, and memory twice over — QuickJS's allocation limit gives agent code a catchable
 * `out of memory` error, and the slot's fixed-size memory is the bound that holds when the allocation limit
 * is overrun. Anything thrown *through* the engine (an abort, the host's own stack overflowing inside
 * WebAssembly) marks the slot broken: the VM reports the cell as failed and is never reused.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { CellOutcome, HostChannel, RunCellOptions, Vm, VmLimits } from "../executor.ts";
import { guestBootstrapSource } from "../guest/guest-bootstrap.ts";
import { errorReply } from "../guest/guest-protocol.ts";
import { HostLink } from "../host-link.ts";
import { formatBytes } from "../limits.ts";
import type { QuickJsSlot } from "./quickjs-slot.ts";

const SEND = "__statekSend";
/** Memory kept outside QuickJS's allocation limit: the engine's static data, its stack, host replies. */
const ENGINE_RESERVE_BYTES = 4 * 1024 * 1024;

type GuestError = { name: string; message: string };

const unconnected: HostChannel = () => errorReply("InternalError", "the VM is not connected to a workspace");

/** A VM in a slot. Create with {@link QuickJsVm.create}. */
export class QuickJsVm implements Vm {
  readonly #slot: QuickJsSlot;
  readonly #limits: VmLimits;
  readonly #invokeTimeMs: number;
  readonly #link: HostLink;
  #runtime: QuickJSRuntime | undefined;
  #context: QuickJSContext | undefined;
  #entries: QuickJSHandle | undefined;
  /** QuickJS's own allocation limit, below the slot's bound. */
  readonly #heapLimit: number;
  #deadline = Infinity;
  #stop = false;
  /** The slot's memory when the current cell started (growth past the heap limit means the heap hit it). */
  #reservedAtStart = 0;
  #disposed = false;
  #onDispose: (slot: QuickJsSlot) => void;

  private constructor(slot: QuickJsSlot, limits: VmLimits, invokeTimeMs: number, onDispose: (slot: QuickJsSlot) => void) {
    this.#slot = slot;
    this.#limits = limits;
    this.#invokeTimeMs = invokeTimeMs;
    this.#heapLimit = Math.max(slot.limitBytes - ENGINE_RESERVE_BYTES, 1024 * 1024);
    this.#link = new HostLink(unconnected);
    this.#onDispose = onDispose;
  }

  /**
   * Builds the runtime and context in `slot` and installs the guest runtime. Installing it needs no host, so
   * a VM can be made ahead of time and {@link connect}ed to its workspace when one needs it.
   */
  static create(slot: QuickJsSlot, limits: VmLimits, invokeTimeMs: number, onDispose: (slot: QuickJsSlot) => void): QuickJsVm {
    const vm = new QuickJsVm(slot, limits, invokeTimeMs, onDispose);
    try {
      vm.#start();
    } catch (error) {
      vm.dispose();
      throw error;
    }
    return vm;
  }

  #start(): void {
    const runtime = this.#slot.module.newRuntime();
    this.#runtime = runtime;
    runtime.setMemoryLimit(this.#heapLimit);
    runtime.setMaxStackSize(this.#limits.stackBytes);
    runtime.setInterruptHandler(() => this.#stop || performance.now() > this.#deadline);
    const context = runtime.newContext();
    this.#context = context;
    this.#slot.attach((op, args) => this.#link.receive(op, args));
    // The function's body never runs: the slot answers its calls directly (see quickjs-slot.ts).
    const send = context.newFunction(SEND, () => undefined);
    context.setProp(context.global, SEND, send);
    send.dispose();
    this.#deadline = performance.now() + this.#invokeTimeMs;
    try {
      const result = context.evalCode(guestBootstrapSource(SEND), "statek-runtime.js");
      if (result.error) {
        const error = describeGuestError(context.dump(result.error));
        result.error.dispose();
        throw new Error(`the guest runtime failed to start: ${error.name}: ${error.message}`);
      }
      this.#entries = result.value;
    } finally {
      this.#deadline = Infinity;
    }
  }

  /** Sends the guest's messages to `host`. */
  connect(host: HostChannel): this {
    this.#link.connect(host);
    return this;
  }

  /** The limits the VM was made with. */
  get limits(): VmLimits {
    return this.#limits;
  }

  #live(): QuickJSContext {
    if (this.#disposed || !this.#context) throw new Error("the VM is disposed");
    if (this.#slot.broken) throw new Error("the VM's engine failed and cannot be used");
    return this.#context;
  }

  invoke(entry: string, ...args: string[]): string {
    const context = this.#live();
    const previous = this.#deadline;
    if (previous === Infinity) this.#deadline = performance.now() + this.#invokeTimeMs;
    const fn = context.getProp(this.#entries!, entry);
    const handles = args.map((arg) => context.newString(arg));
    try {
      const result = this.#guard(() => context.callFunction(fn, context.undefined, ...handles));
      if (result.error) {
        const error = describeGuestError(context.dump(result.error));
        result.error.dispose();
        throw Object.assign(new Error(`${error.name}: ${error.message}`), { guest: error });
      }
      const value = context.typeof(result.value) === "string" ? context.getString(result.value) : "";
      result.value.dispose();
      return value;
    } finally {
      this.#deadline = previous;
      if (!this.#slot.broken) {
        fn.dispose();
        for (const handle of handles) handle.dispose();
      }
    }
  }

  /** Runs engine work; an exception thrown through the engine breaks the slot. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      this.#slot.broken = true;
      throw error;
    }
  }

  async runCell(script: string, { timeLimitMs, signal }: RunCellOptions): Promise<CellOutcome> {
    const context = this.#live();
    const runtime = this.#runtime!;
    const link = this.#link;
    let budget = timeLimitMs;
    let failure: GuestError | undefined;
    let fault: unknown;
    let wakeOnAbort: () => void = () => {};
    const aborted = new Promise<void>((resolve) => {
      wakeOnAbort = resolve;
    });
    const abort = () => {
      this.#stop = true;
      wakeOnAbort();
    };
    if (signal?.aborted) abort();
    signal?.addEventListener("abort", abort);
    // Runs engine work against the cell's remaining CPU budget; false when the budget ran out or the engine failed.
    const slice = (work: () => void): boolean => {
      const start = performance.now();
      this.#deadline = start + budget;
      try {
        this.#guard(work);
      } catch (error) {
        fault = error;
      } finally {
        this.#deadline = Infinity;
        budget -= performance.now() - start;
      }
      return fault === undefined && budget > 0 && !this.#stop;
    };
    const take = (result: { error?: QuickJSHandle; value?: unknown }) => {
      if (result.error) {
        failure ??= describeGuestError(context.dump(result.error));
        result.error.dispose();
      } else {
        (result.value as QuickJSHandle | undefined)?.dispose?.();
      }
    };
    link.startCell();
    this.#reservedAtStart = this.#slot.reservedBytes;
    try {
      this.invoke("begin");
      let running = slice(() => take(context.evalCode(script, "cell.js")));
      while (running) {
        if (failure && !link.ended) break;
        running = slice(() => take(runtime.executePendingJobs()));
        if (!running || link.ended) break;
        const settled = link.takeSettled();
        if (settled.length) {
          running = slice(() => {
            for (const [id, reply] of settled) {
              try {
                this.invoke("settle", String(id), reply);
              } catch (error) {
                // The guest failed to take the reply (stopped at its time limit, out of memory): a guest error.
                const guest = (error as { guest?: GuestError }).guest;
                if (!guest) throw error;
                failure ??= guest;
                break;
              }
            }
          });
          continue;
        }
        if (!link.waiting) break;
        await Promise.race([link.whenSettled(), aborted]);
      }
      const outcome = this.#outcome({ failure, fault, budget, timeLimitMs, aborted: this.#stop });
      const abandoned = link.endCell();
      return abandoned ? { ...outcome, abandoned } : outcome;
    } finally {
      link.endCell(); // (again, when the cell threw: a no-op otherwise)
      this.#stop = false;
      signal?.removeEventListener("abort", abort);
    }
  }

  #outcome(state: { failure: GuestError | undefined; fault: unknown; budget: number; timeLimitMs: number; aborted: boolean }): CellOutcome {
    const memory = formatBytes(this.#limits.memoryBytes);
    const outOfMemory = () => ({
      error: { name: "MemoryLimitError", message: `the cell ran out of memory: the workspace VM is limited to ${memory} (memoryBytes); the VM was discarded` },
      poisoned: true, limit: "memory" as const, broken: true,
    });
    if (state.fault !== undefined || this.#slot.broken) {
      if (this.#nearMemoryBound() || isOutOfMemory(state.fault)) return outOfMemory();
      if (state.fault instanceof RangeError && /call stack/i.test(state.fault.message)) {
        // The worker's own stack ran out inside the engine before the guest's stack limit was reached.
        return {
          error: { name: "RangeError", message: "Maximum call stack size exceeded (the host's stack ran out inside the engine); the VM was discarded" },
          poisoned: true, limit: "stack", broken: true,
        };
      }
      const reason = state.fault instanceof Error ? `${state.fault.name}: ${state.fault.message}` : String(state.fault);
      return {
        error: { name: "InternalError", message: `the sandbox engine failed (${reason.split("\n")[0]}); the VM was discarded` },
        poisoned: true, limit: "engine", broken: true,
      };
    }
    if (state.aborted) return { error: { name: "AbortError", message: "the cell was cancelled" }, poisoned: true, limit: "cancelled" };
    const ended = this.#link.ended;
    if (state.budget <= 0 && !(ended && !ended.error)) {
      const seconds = state.timeLimitMs >= 1000 ? `${state.timeLimitMs / 1000} s` : `${state.timeLimitMs} ms`;
      return {
        error: { name: "TimeoutError", message: `the cell used more than its ${seconds} CPU time limit and was stopped` },
        poisoned: true, limit: "time",
      };
    }
    const error = ended ? ended.error : state.failure ?? { name: "Error", message: "the cell awaits a promise that can never settle" };
    // Out of memory, the engine cannot always even say so: an error with the heap at its bound is one.
    if (error && (isOutOfMemoryError(error) || this.#memoryExhausted())) return outOfMemory();
    return error ? { error } : {};
  }

  #nearMemoryBound(): boolean {
    return this.#slot.reservedBytes + 2 * 65536 >= this.#slot.limitBytes;
  }

  /**
   * True when the heap is at QuickJS's allocation limit or the slot's memory is at its bound — or the cell
   * grew the slot's memory past the heap limit: work that ran out of memory inside promise jobs is dropped
   * by the engine without an exception, and the memory is free again by the time the cell ends.
   */
  #memoryExhausted(): boolean {
    if (this.#nearMemoryBound()) return true;
    const reserved = this.#slot.reservedBytes;
    if (reserved > this.#reservedAtStart && reserved >= this.#heapLimit) return true;
    const used = this.memoryUsage();
    return used === undefined || used >= this.#heapLimit - 1024 * 1024;
  }

  memoryUsage(): number | undefined {
    if (this.#disposed || this.#slot.broken || !this.#runtime) return undefined;
    try {
      const handle = this.#runtime.computeMemoryUsage();
      const usage = this.#context!.dump(handle);
      handle.dispose();
      return typeof usage?.memory_used_size === "number" ? usage.memory_used_size : undefined;
    } catch {
      return undefined;
    }
  }

  reservedMemory(): number {
    return this.#slot.reservedBytes;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (!this.#slot.broken) {
      try {
        this.#entries?.dispose();
        this.#context?.dispose();
        this.#runtime?.dispose();
      } catch {
        // The engine refused to free a runtime that hit a limit: the slot is not reused.
        this.#slot.broken = true;
      }
    }
    this.#entries = this.#context = this.#runtime = undefined;
    this.#onDispose(this.#slot);
  }
}

function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /out of memory|Cannot enlarge memory|memory access out of bounds/i.test(error.message);
}

function isOutOfMemoryError(error: GuestError): boolean {
  return error.message === "out of memory" || (error.name === "InternalError" && /out of memory/.test(error.message));
}

/** The guest error a dumped exception describes. */
export function describeGuestError(error: any): GuestError {
  if (error && typeof error === "object") {
    const name = String(error.name ?? "Error");
    const message = String(error.message ?? "");
    if (name === "InternalError" && message === "interrupted") return { name: "TimeoutError", message: "the cell was stopped" };
    return { name, message };
  }
  if (error === null || error === undefined) return { name: "InternalError", message: "out of memory" };
  return { name: "Error", message: `uncaught ${String(error)}` };
}
