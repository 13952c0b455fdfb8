/**
 * @module
 * One `trusted` VM on a sandbox thread: a `node:vm` context in the thread's V8 isolate, running the same
 * guest runtime as the QuickJS executor. It is **not an isolation boundary** — the context shares the
 * thread's heap, and host objects that reach it (the message function, the argument arrays) lead back to the
 * thread's realm — so it is only for code you trust, where its speed and V8 debugging help.
 *
 * The context has its own microtask queue (`microtaskMode: "afterEvaluate"`), drained at the end of every
 * evaluation under the same timeout, so promise jobs are covered by the CPU limit and the engine runs
 * synchronously like QuickJS. Limits: CPU time through `node:vm` timeouts (wall-clock: for this executor the
 * time the guest waits for the host counts too) and the watchdog; no memory bound; V8's own stack.
 */
import { Script, createContext, type Context } from "node:vm";
import type { CellOutcome, Delivery, EntryCall, GuestError } from "../executor.ts";
import { guestBootstrapSource } from "../guest/guest-bootstrap.ts";
import { CODE_START_OP, operationName } from "../guest/guest-protocol.ts";
import { parseEnd } from "../quickjs/quickjs-vm.ts";
import { CellClock } from "../sandbox/cell-clock.ts";
import { CellProgress } from "../sandbox/cell-progress.ts";
import { EntryError, NESTED_TIMEOUT, type CellEnd, type EngineVm, type GuestLink, type Slice, type VmMemory } from "../sandbox/engine-vm.ts";
import { errorInfo } from "../../errors/guest-entry-error.ts";
import { TimeoutError } from "../../errors/timeout-error.ts";

const SEND = "__statekSend";
const ENTRIES = "__statekEntries";
const CALL = "__statekCall";
const invokeScript = new Script(`${ENTRIES}[${CALL}.entry].apply(undefined, ${CALL}.args)`, { filename: "statek-runtime.js" });

/** A `node:vm` context running the guest runtime. */
export class TrustedVm implements EngineVm {
  readonly #context: Context;
  readonly #invokeTimeMs: number;
  readonly #clock = new CellClock();
  readonly #progress = new CellProgress();
  readonly #call = { entry: "", args: [] as string[] };
  #link: GuestLink;
  #timedOut = false;
  #disposed = false;

  constructor(
    link: GuestLink, invokeTimeMs: number, interrupted: () => boolean, publish: (absoluteDeadlineMs: number) => void, stopRequested: () => boolean = () => false,
  ) {
    this.#link = link;
    this.#invokeTimeMs = invokeTimeMs;
    this.#clock.interrupted = interrupted;
    this.#clock.stopRequested = stopRequested;
    this.#clock.publish = publish;
    this.#context = createContext({}, {
      name: "statek trusted workspace",
      codeGeneration: { strings: true, wasm: false },
      microtaskMode: "afterEvaluate",
    });
    const hidden = (name: string, value: unknown) => Object.defineProperty(this.#context, name, { value, writable: true, configurable: true, enumerable: false });
    hidden(SEND, (code: number, ...args: unknown[]) => this.#receive(operationName(code), args.map((arg) => (arg === undefined ? "" : String(arg)))));
    const entries = new Script(guestBootstrapSource(SEND), { filename: "statek-runtime.js" }).runInContext(this.#context, { timeout: invokeTimeMs });
    hidden(ENTRIES, entries);
    hidden(CALL, this.#call);
  }

  #receive(op: string, args: string[]): string {
    if (op === "done") {
      this.#progress.guestEnded(args[0] ? parseEnd(args[0]) : undefined);
      return "";
    }
    this.#clock.pause();
    try {
      const reply = this.#link(op, args);
      this.#progress.replied(reply);
      return reply;
    } finally {
      this.#clock.resume();
    }
  }

  /** Runs `work` with the remaining budget as its timeout; a timeout or a thrown error is recorded. */
  #run(work: (timeoutMs: number) => unknown): unknown {
    try {
      return work(Math.max(1, Math.ceil(this.#clock.left())));
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
        this.#timedOut = true;
        this.#progress.clockStopped();
      }
      throw error;
    }
  }

  #entry(entry: string, args: readonly string[], timeoutMs: number): string {
    this.#call.entry = entry;
    this.#call.args = [...args];
    const result = invokeScript.runInContext(this.#context, { timeout: Math.max(1, Math.ceil(timeoutMs)) });
    return typeof result === "string" ? result : "";
  }

  invoke(entry: string, args: readonly string[], timeLimitMs: number = this.#invokeTimeMs): string {
    if (this.#disposed) throw new Error("the VM is disposed");
    try {
      return this.#entry(entry, args, timeLimitMs);
    } catch (error) {
      throw new EntryError({ guest: describe(error) });
    }
  }

  invokeNested(entry: string, args: readonly string[], untilAbsoluteMs: number): string {
    if (this.#disposed) throw new Error("the VM is disposed");
    const leftMs = untilAbsoluteMs - (performance.timeOrigin + performance.now());
    if (leftMs <= 0) throw new EntryError({ guest: NESTED_TIMEOUT });
    try {
      return this.#entry(entry, args, Math.min(leftMs, Math.max(1, this.#clock.left())));
    } catch (error) {
      throw new EntryError({ guest: (error as { code?: string })?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT" ? NESTED_TIMEOUT : describe(error) });
    }
  }

  /** Runs guest work on the cell's clock; false when the cell must stop. */
  #slice(work: (timeoutMs: number) => void): boolean {
    this.#clock.resume();
    try {
      this.#run(work);
    } catch (error) {
      if (!this.#timedOut) this.#progress.guestFailed(describe(error));
    } finally {
      this.#clock.pause();
    }
    // This engine cannot stop running code when asked: it stops between slices.
    if (!this.#clock.interrupted() && this.#clock.stopRequested()) this.#progress.wallStopped();
    return !this.#timedOut && !this.#clock.expired();
  }

  start(script: string, timeLimitMs: number, wallTimeMs: number, before: readonly EntryCall[], after: EntryCall | undefined): Slice {
    if (this.#disposed) throw new Error("the VM is disposed");
    this.#timedOut = false;
    this.#progress.start(timeLimitMs, wallTimeMs, after);
    this.#clock.startCell(timeLimitMs);
    for (const call of before) {
      if (!this.#slice((timeout) => this.#entry(call.entry, call.args, timeout)) || this.#progress.mustStop()) return this.#afterSlice();
    }
    this.#entry("begin", [], this.#invokeTimeMs);
    this.#link(CODE_START_OP, []);
    this.#slice((timeout) => new Script(script, { filename: "cell.js" }).runInContext(this.#context, { timeout }));
    return this.#afterSlice();
  }

  deliver(deliveries: readonly Delivery[]): Slice {
    for (const { id, reply } of deliveries) {
      this.#progress.delivered();
      if (!this.#slice((timeout) => this.#entry("settle", [String(id), reply], timeout)) || this.#progress.mustStop()) break;
    }
    return this.#afterSlice();
  }

  finish(end: CellEnd): Slice {
    return this.#over(this.#progress.outcomeWhenIdle(end));
  }

  cancel(): Slice {
    return this.#over(this.#progress.cancelled());
  }

  #afterSlice(): Slice {
    if (this.#clock.interrupted()) return this.#over(this.#progress.cancelled());
    const stop = this.#progress.stopOutcome(this.#timedOut ? 0 : this.#clock.left());
    if (stop) return this.#over(stop);
    if (this.#progress.finishedWithNothingPending()) return this.#over(this.#progress.outcomeWhenIdle("finished"));
    return { state: "idle", ended: this.#progress.ended, cpuMs: this.#clock.usedMs(), memory: {} };
  }

  #over(outcome: CellOutcome): Slice {
    const final: CellOutcome = { ...outcome, cpuMs: this.#clock.usedMs() };
    const after = this.#progress.after;
    if (after && !final.suspended) {
      try {
        final.after = { text: this.#entry(after.entry, after.args, this.#invokeTimeMs) };
      } catch (error) {
        final.after = { error: describe(error) };
      }
    }
    this.#progress.over();
    return { state: "over", ended: this.#progress.ended, outcome: final, cpuMs: final.cpuMs ?? 0, memory: {} };
  }

  memory(): VmMemory {
    return {};
  }

  lastMemory(): VmMemory {
    return {};
  }

  dispose(): void {
    this.#disposed = true;
  }
}

/** Name and message of something thrown inside the context (its classes are not the thread's). */
function describe(error: unknown): GuestError {
  if ((error as { code?: string } | null)?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return errorInfo(new TimeoutError({ kind: "entry" }));
  if (error && typeof error === "object" && "message" in error) {
    return { name: String((error as { name?: unknown }).name ?? "Error"), message: String((error as { message: unknown }).message) };
  }
  return { name: "Error", message: `uncaught ${String(error)}` };
}
