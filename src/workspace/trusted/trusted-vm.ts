/**
 * @module
 * One `trusted` VM: a `node:vm` context in the worker's own V8 isolate, running the same guest runtime as
 * the QuickJS executor. It is **not an isolation boundary** — the context shares the process's heap, and
 * host objects that reach it (the message function, the argument arrays) lead back to the host realm — so
 * it is only for code you trust, where its speed and V8 debugging help. Limits: CPU time through `node:vm`
 * timeouts, for synchronous code only; no memory bound; V8's own stack.
 *
 * The context shares the worker's microtask queue. A context with its own queue (`microtaskMode:
 * "afterEvaluate"`) would let timeouts cover promise jobs too, but a timeout that fires inside one of them
 * aborts the whole Node process when async hooks are on (nodejs/node#38503; the test runner and
 * AsyncLocalStorage turn them on), so an endless chain of promise jobs is not stopped in this executor.
 */
import { Script, createContext, type Context } from "node:vm";
import type { CellOutcome, HostChannel, RunCellOptions, Vm } from "../executor.ts";
import { guestBootstrapSource } from "../guest/guest-bootstrap.ts";
import { operationName } from "../guest/guest-protocol.ts";
import { HostLink } from "../host-link.ts";

const SEND = "__statekSend";
const ENTRIES = "__statekEntries";
const CALL = "__statekCall";
const invokeScript = new Script(`${ENTRIES}[${CALL}.entry].apply(undefined, ${CALL}.args)`, { filename: "statek-runtime.js" });
/** Lets the promise jobs the guest queued run (they share the worker's microtask queue). */
const guestJobs = () => new Promise<void>((resolve) => setImmediate(resolve));

type GuestError = { name: string; message: string };

/** A `node:vm` context running the guest runtime. */
export class TrustedVm implements Vm {
  readonly #context: Context;
  readonly #link: HostLink;
  readonly #invokeTimeMs: number;
  readonly #call = { entry: "", args: [] as string[] };
  #disposed = false;

  constructor(host: HostChannel, invokeTimeMs: number) {
    this.#link = new HostLink(host);
    this.#invokeTimeMs = invokeTimeMs;
    this.#context = createContext({}, { name: "statek trusted workspace", codeGeneration: { strings: true, wasm: false } });
    const hidden = (name: string, value: unknown) => Object.defineProperty(this.#context, name, { value, writable: true, configurable: true, enumerable: false });
    hidden(SEND, (code: number, ...args: unknown[]) => this.#link.receive(operationName(code), args.map((arg) => (arg === undefined ? "" : String(arg)))));
    const entries = new Script(guestBootstrapSource(SEND), { filename: "statek-runtime.js" }).runInContext(this.#context, { timeout: invokeTimeMs });
    hidden(ENTRIES, entries);
    hidden(CALL, this.#call);
  }

  #invoke(entry: string, args: string[], timeoutMs: number): string {
    this.#call.entry = entry;
    this.#call.args = args;
    const result = invokeScript.runInContext(this.#context, { timeout: Math.max(1, Math.ceil(timeoutMs)) });
    return typeof result === "string" ? result : "";
  }

  invoke(entry: string, ...args: string[]): string {
    if (this.#disposed) throw new Error("the VM is disposed");
    try {
      return this.#invoke(entry, args, this.#invokeTimeMs);
    } catch (error) {
      const info = describe(error);
      throw Object.assign(new Error(`${info.name}: ${info.message}`), { guest: info });
    }
  }

  async runCell(script: string, options: RunCellOptions): Promise<CellOutcome> {
    const outcome = await this.#runCell(script, options);
    const abandoned = this.#link.endCell();
    return abandoned ? { ...outcome, abandoned } : outcome;
  }

  async #runCell(script: string, { timeLimitMs, signal }: RunCellOptions): Promise<CellOutcome> {
    if (this.#disposed) throw new Error("the VM is disposed");
    const link = this.#link;
    let budget = timeLimitMs;
    let failure: GuestError | undefined;
    let timedOut = false;
    let wake: () => void = () => {};
    const aborted = new Promise<void>((resolve) => {
      wake = resolve;
    });
    signal?.addEventListener("abort", wake, { once: true });
    const slice = (work: (timeoutMs: number) => void): boolean => {
      const start = performance.now();
      try {
        work(Math.max(1, Math.ceil(budget)));
      } catch (error) {
        if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") timedOut = true;
        else failure ??= describe(error);
      } finally {
        budget -= performance.now() - start;
      }
      return !timedOut && budget > 0 && !signal?.aborted;
    };
    link.startCell();
    try {
      this.#invoke("begin", [], this.#invokeTimeMs);
      let running = slice((timeout) => new Script(script, { filename: "cell.js" }).runInContext(this.#context, { timeout }));
      while (running && !failure) {
        await guestJobs();
        if (link.ended || signal?.aborted) break;
        const settled = link.takeSettled();
        if (settled.length) {
          running = slice((timeout) => {
            for (const [id, reply] of settled) this.#invoke("settle", [String(id), reply], timeout);
          });
          continue;
        }
        if (!link.waiting) break;
        await Promise.race([link.whenSettled(), aborted]);
      }
      if (signal?.aborted) return { error: { name: "AbortError", message: "the cell was cancelled" }, poisoned: true, limit: "cancelled" };
      const ended = link.ended;
      if (ended) return ended.error ? { error: ended.error } : {};
      if (timedOut || budget <= 0) {
        const seconds = timeLimitMs >= 1000 ? `${timeLimitMs / 1000} s` : `${timeLimitMs} ms`;
        return { error: { name: "TimeoutError", message: `the cell used more than its ${seconds} CPU time limit and was stopped` }, poisoned: true, limit: "time" };
      }
      return { error: failure ?? { name: "Error", message: "the cell awaits a promise that can never settle" } };
    } finally {
      signal?.removeEventListener("abort", wake);
    }
  }

  memoryUsage(): undefined {
    return undefined;
  }

  reservedMemory(): undefined {
    return undefined;
  }

  dispose(): void {
    this.#disposed = true;
  }
}

/** Name and message of something thrown inside the context (its classes are not the host's). */
function describe(error: unknown): GuestError {
  if (error && typeof error === "object" && "message" in error) {
    return { name: String((error as { name?: unknown }).name ?? "Error"), message: String((error as { message: unknown }).message) };
  }
  return { name: "Error", message: `uncaught ${String(error)}` };
}
