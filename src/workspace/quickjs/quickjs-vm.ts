/**
 * @module
 * One QuickJS-NG VM on a sandbox thread: a runtime and context inside a slot (`quickjs-slot.ts`) that it
 * owns while it lives, with the guest runtime installed. It enforces the limits the engine can: CPU time
 * through the interrupt handler (time the guest spends waiting for the host is not counted), stack depth,
 * and memory. QuickJS's allocation limit is set, but this build does not enforce it (a cell was seen using
 * 31 MB under a 10 MB limit); the slot's fixed-size memory is the bound that holds, and agent code that reaches
 * it still gets a catchable `out of memory` error. Anything thrown
 * *through* the engine (an abort, the thread's own stack overflowing inside WebAssembly) marks the slot
 * broken: the cell is reported as failed and the VM is never reused. What the interrupt handler never sees
 * (a native loop inside a built-in) is the watchdog's job: it stops the whole thread.
 */
import type { JSRuntimePointer, JSValuePointer, QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { CellOutcome, Delivery, EntryCall, GuestError, VmLimits } from "../executor.ts";
import { guestBootstrapSource } from "../guest/guest-bootstrap.ts";
import { CODE_START_OP, errorReply } from "../guest/guest-protocol.ts";
import { formatBytes } from "../limits.ts";
import { CellClock } from "../sandbox/cell-clock.ts";
import { CellProgress } from "../sandbox/cell-progress.ts";
import { EntryError, NESTED_TIMEOUT, VM_START_TIMEOUT, type CellEnd, type EngineVm, type GuestLink, type Slice, type VmMemory } from "../sandbox/engine-vm.ts";
import { readHeapBreak } from "./quickjs-heap-break.ts";
import { QuickJsImage, type Baseline } from "./quickjs-image.ts";
import type { QuickJsSlot } from "./quickjs-slot.ts";
import { errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";
import { errorText } from "../../errors/error-text.ts";

const SEND = "__statekSend";
/** Memory kept outside QuickJS's allocation limit: the engine's static data, its stack, host replies. */
const ENGINE_RESERVE_BYTES = 4 * 1024 * 1024;

const unconnected: GuestLink = () => errorReply("InternalError", "the VM is not connected to a workspace");

/** A VM in a slot. Create with {@link QuickJsVm.create}. */
export class QuickJsVm implements EngineVm {
  readonly #slot: QuickJsSlot;
  readonly #limits: VmLimits;
  readonly #invokeTimeMs: number;
  readonly #clock: CellClock;
  readonly #progress = new CellProgress();
  #link: GuestLink = unconnected;
  #runtime: QuickJSRuntime | undefined;
  #context: QuickJSContext | undefined;
  #entries: QuickJSHandle | undefined;
  /** QuickJS's own allocation limit, below the slot's bound. */
  readonly #heapLimit: number;
  /** The last measure of the heap (see {@link #report}). */
  /** `heapBreak` is set on the image's figure only: it holds until the heap grows past the image's break. */
  #measured: (VmMemory & { at: number; heapBreak?: number | undefined }) | undefined;
  /** Where the module keeps its heap's break, when the VM's image told (see `quickjs-heap-break.ts`). */
  #breakAddress: number | undefined;
  /** The slot's memory when the current cell started (growth past the heap limit means the heap hit it). */
  #reservedAtStart = 0;
  #fault: unknown;
  /** Host calls the guest is blocked in (entries called meanwhile are nested). */
  #hostDepth = 0;
  #disposed = false;
  /** True while the VM was made new (not from an image) and has run nothing since: it may give an image. */
  #pristine = false;
  #pointers: { runtime: number; context: number } | undefined;
  /** True when the engine was copied from an image: disposing the VM then leaves it for the next image. */
  #fromImage = false;
  readonly #onDispose: (slot: QuickJsSlot) => void;

  private constructor(slot: QuickJsSlot, limits: VmLimits, invokeTimeMs: number, onDispose: (slot: QuickJsSlot) => void) {
    this.#slot = slot;
    this.#limits = limits;
    this.#invokeTimeMs = invokeTimeMs;
    this.#heapLimit = Math.max(slot.limitBytes - ENGINE_RESERVE_BYTES, 1024 * 1024);
    this.#clock = new CellClock();
    this.#onDispose = onDispose;
  }

  /**
   * Builds the runtime and context in `slot` and installs the guest runtime — or, given an `image` of a VM
   * that did exactly that (`quickjs-image.ts`), copies it into the slot. Installing it needs no host, so a
   * VM can be made ahead of time and {@link connect}ed to its workspace when one needs it.
   */
  static create(slot: QuickJsSlot, limits: VmLimits, invokeTimeMs: number, onDispose: (slot: QuickJsSlot) => void, image?: QuickJsImage): QuickJsVm {
    const vm = new QuickJsVm(slot, limits, invokeTimeMs, onDispose);
    try {
      vm.#start(image);
    } catch (error) {
      vm.dispose();
      throw error;
    }
    return vm;
  }

  #start(image: QuickJsImage | undefined): void {
    const firstInSlot = !this.#slot.used;
    const engine = image ? this.#slot.loadImage(image) : this.#slot.newEngine(SEND);
    const { runtime, context } = engine;
    this.#runtime = runtime;
    this.#context = context;
    this.#pointers = { runtime: engine.runtimePointer, context: engine.contextPointer };
    // What the engine keeps per VM is set again for an image's engine: an image carries its template's.
    runtime.setMemoryLimit(this.#heapLimit);
    runtime.setMaxStackSize(this.#limits.stackBytes);
    runtime.setInterruptHandler(() => this.#clock.expired());
    this.#slot.attach((op, args) => this.#receive(op, args));
    if (image) {
      this.#fromImage = true;
      this.#entries = context.getMemory(engine.runtimePointer as JSRuntimePointer).heapValueHandle(image.pointers.entries as JSValuePointer);
      // A VM fresh from the image holds exactly the image's heap: measured by the first such VM only.
      this.#breakAddress = image.breakAddress;
      image.usedBytes ??= this.#memoryUsed();
      this.#measured = { used: image.usedBytes, reserved: this.#slot.reservedBytes, at: performance.now(), heapBreak: this.#heapBreak() };
      return;
    }
    this.#clock.enter(this.#invokeTimeMs);
    try {
      const result = context.evalCode(guestBootstrapSource(SEND), "statek-runtime.js");
      if (result.error) {
        const error = describeGuestError(context.dump(result.error));
        result.error.dispose();
        const failure = new Error(`the guest runtime failed to start: ${error.name}: ${error.message}`);
        // Out of time only because the thread got no CPU (a loaded machine): making the VM again may succeed.
        if (error.name === "TimeoutError") failure.name = VM_START_TIMEOUT;
        throw failure;
      }
      this.#entries = result.value;
    } finally {
      this.#clock.leave();
    }
    // Only the first engine of a new instance may give an image: a used slot's free memory holds old bytes.
    this.#pristine = firstInSlot;
  }

  /**
   * A memory image of this VM, for {@link create} to copy into other slots. Only a VM that was made new, as
   * the first in a new module instance, and never ran anything since — no entry, no cell, no memory measure —
   * can give one: an image carries everything in the slot's memory.
   * `baseline` is the slot's {@link QuickJsImage.baseline} from before the VM was made; `breakAddress`
   * where the module keeps its heap's break, if known (see `quickjs-heap-break.ts`).
   */
  captureImage(baseline: Baseline, breakAddress?: number): QuickJsImage {
    if (!this.#pristine || this.#disposed || this.#slot.broken || !this.#pointers || !this.#entries) {
      throw new Error("an image is taken only from a new VM that has run nothing");
    }
    return QuickJsImage.capture(this.#slot.memory, baseline, { ...this.#pointers, entries: this.#entries.value as number }, breakAddress);
  }

  /**
   * Sends the guest's messages to `link`; `interrupted` tells the interrupt handler the host wants everything
   * stopped, `stopRequested` that it wants the cell's own code stopped (see `CellClock`); `publish` is told the
   * deadline of running guest code.
   */
  connect(link: GuestLink, interrupted: () => boolean, publish: (absoluteDeadlineMs: number) => void, stopRequested: () => boolean = () => false): this {
    this.#link = link;
    this.#clock.interrupted = interrupted;
    this.#clock.stopRequested = stopRequested;
    this.#clock.publish = publish;
    return this;
  }

  /** The slot the VM runs in (for tests and measurements). */
  get slot(): QuickJsSlot {
    return this.#slot;
  }

  /** The limits the VM was made with. */
  get limits(): VmLimits {
    return this.#limits;
  }

  // The guest's messages: the end of a cell is the VM's own business; everything else goes to the host,
  // and the time the guest waits for the answer is not charged to it.
  #receive(op: string, args: string[]): string {
    if (op === "done") {
      this.#progress.guestEnded(args[0] ? parseEnd(args[0]) : undefined);
      return "";
    }
    this.#clock.pause();
    this.#hostDepth++;
    try {
      const reply = this.#link(op, args);
      this.#progress.replied(reply);
      return reply;
    } finally {
      this.#hostDepth--;
      this.#clock.resume();
    }
  }

  #live(): QuickJSContext {
    this.#pristine = false;
    if (this.#disposed || !this.#context) throw new Error("the VM is disposed");
    if (this.#slot.broken) throw new Error("the VM's engine failed and cannot be used");
    return this.#context;
  }

  invoke(entry: string, args: readonly string[], timeLimitMs: number = this.#invokeTimeMs): string {
    this.#live();
    // Inside a host call of a running cell the entry runs on the cell's clock; otherwise on a budget of its own.
    if (this.#hostDepth > 0) return this.invokeNested(entry, args, Infinity);
    this.#clock.enter(timeLimitMs);
    try {
      return this.#callEntry(entry, args);
    } finally {
      this.#clock.leave();
    }
  }

  invokeNested(entry: string, args: readonly string[], untilAbsoluteMs: number): string {
    this.#live();
    // Picked up after the host stopped waiting for it: nothing runs.
    if (performance.timeOrigin + performance.now() >= untilAbsoluteMs) throw new EntryError({ guest: NESTED_TIMEOUT });
    this.#clock.resume(untilAbsoluteMs);
    try {
      return this.#callEntry(entry, args);
    } catch (error) {
      if (error instanceof EntryError && this.#clock.capped()) throw new EntryError({ guest: NESTED_TIMEOUT });
      throw error;
    } finally {
      this.#clock.pause();
    }
  }

  /** Calls a runtime entry on whatever clock is running; throws an {@link EntryError} for a guest error. */
  #callEntry(entry: string, args: readonly string[]): string {
    const context = this.#live();
    const fn = context.getProp(this.#entries!, entry);
    const handles = args.map((arg) => context.newString(arg));
    try {
      const result = this.#guard(() => context.callFunction(fn, context.undefined, ...handles));
      if (result.error) {
        const error = describeGuestError(context.dump(result.error));
        result.error.dispose();
        throw new EntryError({ guest: error });
      }
      const value = context.typeof(result.value) === "string" ? context.getString(result.value) : "";
      result.value.dispose();
      return value;
    } finally {
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

  /** Runs engine work on the cell's clock, then the guest's jobs; false when the cell must stop. */
  #slice(work: () => void): boolean {
    const context = this.#context!;
    const runtime = this.#runtime!;
    const take = (result: { error?: QuickJSHandle; value?: unknown }) => {
      if (result.error) {
        this.#progress.guestFailed(describeGuestError(context.dump(result.error)));
        result.error.dispose();
      } else {
        (result.value as QuickJSHandle | undefined)?.dispose?.();
      }
    };
    this.#clock.resume();
    try {
      this.#guard(work);
      if (!this.#clock.expired()) this.#guard(() => take(runtime.executePendingJobs()));
    } catch (error) {
      this.#fault = error;
    } finally {
      this.#clock.pause();
    }
    const expired = this.#clock.expired();
    if (expired && !this.#clock.interrupted()) {
      if (this.#clock.stopRequested()) this.#progress.wallStopped();
      else this.#progress.clockStopped();
    }
    return this.#fault === undefined && !expired;
  }

  start(script: string, timeLimitMs: number, wallTimeMs: number, before: readonly EntryCall[], after: EntryCall | undefined): Slice {
    const context = this.#live();
    this.#fault = undefined;
    this.#progress.start(timeLimitMs, wallTimeMs, after);
    this.#clock.startCell(timeLimitMs);
    this.#reservedAtStart = this.#slot.reservedBytes;
    // Restoring runs agent code (static blocks, getters): on the cell's clock, before the cell's own code.
    for (const call of before) {
      const going = this.#slice(() => {
        try {
          this.#callEntry(call.entry, call.args);
        } catch (error) {
          if (!(error instanceof EntryError)) throw error;
          this.#progress.guestFailed(error.guest);
        }
      });
      if (!going || this.#progress.mustStop()) return this.#afterSlice();
    }
    this.#callEntry("begin", []);
    this.#link(CODE_START_OP, []);
    this.#slice(() => {
      const result = context.evalCode(script, "cell.js");
      if (result.error) {
        this.#progress.guestFailed(describeGuestError(context.dump(result.error)));
        result.error.dispose();
      } else {
        result.value.dispose();
      }
    });
    return this.#afterSlice();
  }

  deliver(deliveries: readonly Delivery[]): Slice {
    this.#live();
    for (const { id, reply } of deliveries) {
      this.#progress.delivered();
      const going = this.#slice(() => {
        try {
          this.#callEntry("settle", [String(id), reply]);
        } catch (error) {
          // The guest failed to take the reply (stopped at its time limit, out of memory): a guest error.
          if (!(error instanceof EntryError)) throw error;
          this.#progress.guestFailed(error.guest);
        }
      });
      if (!going || this.#progress.mustStop()) break;
    }
    return this.#afterSlice();
  }

  finish(end: CellEnd): Slice {
    return this.#over(this.#progress.outcomeWhenIdle(end));
  }

  cancel(): Slice {
    return this.#over(this.#progress.cancelled());
  }

  // Either the guest is idle and the host decides what comes next, or the cell is over.
  #afterSlice(): Slice {
    if (this.#fault !== undefined || this.#slot.broken) return this.#over(this.#faultOutcome());
    if (this.#clock.interrupted()) return this.#over(this.#progress.cancelled());
    const stop = this.#progress.stopOutcome(this.#clock.left());
    if (stop) return this.#over(stop);
    if (this.#progress.finishedWithNothingPending()) return this.#over(this.#progress.outcomeWhenIdle("finished"));
    return { state: "idle", ended: this.#progress.ended, cpuMs: this.#clock.usedMs(), memory: this.lastMemory() };
  }

  #over(outcome: CellOutcome): Slice {
    let final = outcome;
    // Out of memory, the engine cannot always even say so: an error with the heap at its bound is one.
    if (!final.broken && final.error && (isOutOfMemoryError(final.error) || this.#memoryExhausted())) final = this.#outOfMemory();
    final = { ...final, cpuMs: this.#clock.usedMs() };
    const after = this.#progress.after;
    // A suspended cell is resumed by replaying it: its variables are whatever the last step saved.
    if (after && !final.broken && !final.suspended && !this.#slot.broken) {
      try {
        final.after = { text: this.invoke(after.entry, after.args) };
      } catch (error) {
        if (!(error instanceof EntryError)) {
          this.#slot.broken = true;
          final = { ...final, poisoned: true, broken: true };
        } else {
          final.after = { error: error.guest };
        }
      }
    }
    this.#progress.over();
    return { state: "over", ended: this.#progress.ended, outcome: final, cpuMs: final.cpuMs ?? 0, memory: this.lastMemory() };
  }

  #outOfMemory(): CellOutcome {
    const memory = formatBytes(this.#limits.memoryBytes);
    return {
      error: { name: "MemoryLimitError", message: `the cell ran out of memory: the workspace VM is limited to ${memory} (memoryBytes); the VM was discarded` },
      poisoned: true, limit: "memory", broken: true,
    };
  }

  #faultOutcome(): CellOutcome {
    const fault = this.#fault;
    if (this.#nearMemoryBound() || isOutOfMemory(fault)) return this.#outOfMemory();
    if (fault instanceof RangeError && /call stack/i.test(fault.message)) {
      // The thread's own stack ran out inside the engine before the guest's stack limit was reached.
      return {
        error: { name: "RangeError", message: "Maximum call stack size exceeded (the host's stack ran out inside the engine); the VM was discarded" },
        poisoned: true, limit: "stack", broken: true,
      };
    }
    const reason = errorText(fault);
    return {
      error: { name: "InternalError", message: `the sandbox engine failed (${reason.split("\n")[0]}); the VM was discarded` },
      poisoned: true, limit: "engine", broken: true,
    };
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
    const used = this.#memoryUsed();
    return used === undefined || used >= this.#heapLimit - 1024 * 1024;
  }

  #memoryUsed(): number | undefined {
    this.#pristine = false;
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

  /**
   * The memory a slice reports. Measuring the heap walks all of it (every object, every array element), which
   * would make every step cost more as the workspace grows: the heap in use is measured again only when the
   * slot's memory changed or the last measure is a second old — or, for the image's figure a VM starts with,
   * once its heap grew past the image's break — and reported as of then otherwise.
   */
  lastMemory(): VmMemory {
    const reserved = this.#slot.reservedBytes;
    const now = performance.now();
    const measured = this.#measured;
    const grewPastImage = measured?.heapBreak !== undefined && measured.heapBreak !== this.#heapBreak();
    if (measured === undefined || measured.reserved !== reserved || grewPastImage || now - measured.at >= 1_000) {
      this.#measured = { ...this.memory(), at: now };
    }
    const { used } = this.#measured!;
    return used === undefined ? { reserved } : { used, reserved };
  }

  /** The heap's break, read from the slot's memory (one word), when its address is known. */
  #heapBreak(): number | undefined {
    return this.#breakAddress === undefined ? undefined : readHeapBreak(new Uint8Array(this.#slot.memory.buffer), this.#breakAddress);
  }

  memory(): VmMemory {
    const used = this.#memoryUsed();
    return used === undefined ? { reserved: this.#slot.reservedBytes } : { used, reserved: this.#slot.reservedBytes };
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#fromImage && !this.#slot.broken) {
      // Nothing on this side needs the engine freed (quickjs-emscripten keeps no finalizers, and its per-pointer
      // callback entries are replaced when an image engine is adopted at the same addresses again).
      this.#slot.abandonEngine();
    } else if (!this.#slot.broken) {
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

/** How the guest described the end of a cell (`done`'s argument). */
export function parseEnd(text: string): GuestError {
  try {
    const info = JSON.parse(text) as { name?: unknown; message?: unknown };
    return { name: String(info.name ?? "Error"), message: String(info.message ?? "") };
  } catch {
    return { name: "Error", message: "the cell ended with an error that could not be read" };
  }
}

/** The guest error a dumped exception describes. */
export function describeGuestError(error: any): GuestError {
  if (error && typeof error === "object") {
    const name = String(error.name ?? "Error");
    const message = String(error.message ?? "");
    if (name === "InternalError" && message === "interrupted") return errorInfo(new TimeoutError({ kind: "cell-stopped" }));
    return { name, message };
  }
  if (error === null || error === undefined) return { name: "InternalError", message: "out of memory" };
  return { name: "Error", message: `uncaught ${String(error)}` };
}
