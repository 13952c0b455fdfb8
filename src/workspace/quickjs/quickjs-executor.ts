/**
 * @module
 * The `quickjs` executor: each VM is a QuickJS-NG runtime and context compiled to WebAssembly, with its own
 * heap limit, stack limit and interrupt handler. Agent code sees only the guest runtime; the one host function
 * it is built on carries text messages to the {@link HostChannel}.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { CellOutcome, CreateVmOptions, Executor, HostChannel, RunCellOptions, Vm } from "../executor.ts";
import { guestBootstrapSource } from "../guest/guest-bootstrap.ts";
import { loadQuickJsModule } from "./quickjs-module.ts";

const SEND = "__statekSend";

/** Creates the default, isolating executor. The WebAssembly module is loaded once per process. */
export function createQuickJsExecutor(): Executor {
  return {
    name: "quickjs",
    isolated: true,
    async createVm(options) {
      return new QuickJsVm(await loadQuickJsModule(), options);
    },
  };
}

class QuickJsVm implements Vm {
  #runtime: QuickJSRuntime;
  #context: QuickJSContext;
  #host: HostChannel;
  #statek: QuickJSHandle;
  #deadline = Infinity;
  #interrupted = false;
  #pending = new Map<number, Promise<void>>();
  #nextPending = 1;
  #done: { error?: { name: string; message: string } } | undefined;
  #disposed = false;

  constructor(module: QuickJSWASMModule, { limits, host }: CreateVmOptions) {
    this.#host = host;
    this.#runtime = module.newRuntime();
    this.#runtime.setMemoryLimit(limits.memoryBytes);
    this.#runtime.setMaxStackSize(limits.stackBytes);
    this.#runtime.setInterruptHandler(() => {
      if (performance.now() > this.#deadline) this.#interrupted = true;
      return this.#interrupted;
    });
    this.#context = this.#runtime.newContext();
    const context = this.#context;
    const send = context.newFunction(SEND, (...handles) => {
      const [op, ...args] = handles.map((handle) => context.getString(handle));
      return context.newString(this.#receive(op!, args));
    });
    context.setProp(context.global, SEND, send);
    send.dispose();
    this.#deadline = performance.now() + 5_000;
    this.#evaluate(guestBootstrapSource(SEND));
    this.#statek = context.getProp(context.global, "__statek");
    this.#deadline = Infinity;
  }

  #receive(op: string, args: string[]): string {
    if (op === "done") {
      this.#done = args[0] ? { error: JSON.parse(args[0]) } : {};
      return "{}";
    }
    let reply: string | Promise<string>;
    try {
      reply = this.#host(op, args);
    } catch (error) {
      return JSON.stringify({ e: { name: "InternalError", message: error instanceof Error ? error.message : String(error) } });
    }
    if (typeof reply === "string") return reply;
    const id = this.#nextPending++;
    const settle = (text: string) => {
      this.#pending.delete(id);
      if (!this.#disposed) this.invoke("settle", String(id), text);
    };
    this.#pending.set(id, reply.then(settle, (error: unknown) => {
      settle(JSON.stringify({ e: { name: "InternalError", message: error instanceof Error ? error.message : String(error) } }));
    }));
    return JSON.stringify({ p: id });
  }

  #evaluate(source: string): void {
    const result = this.#context.evalCode(source, "cell.js");
    if (result.error) {
      const error = this.#context.dump(result.error);
      result.error.dispose();
      throw new Error(`guest runtime failed: ${error?.message ?? String(error)}`);
    }
    result.value.dispose();
  }

  invoke(entry: string, ...args: string[]): string {
    const context = this.#context;
    const fn = context.getProp(this.#statek, entry);
    const handles = args.map((arg) => context.newString(arg));
    const previous = this.#deadline;
    if (previous === Infinity) this.#deadline = performance.now() + 5_000;
    try {
      const result = context.callFunction(fn, context.undefined, ...handles);
      if (result.error) {
        const error = context.dump(result.error);
        result.error.dispose();
        throw Object.assign(new Error(`${error?.name ?? "Error"}: ${error?.message ?? String(error)}`), { guest: error });
      }
      const value = context.typeof(result.value) === "string" ? context.getString(result.value) : "";
      result.value.dispose();
      return value;
    } finally {
      this.#deadline = previous;
      fn.dispose();
      for (const handle of handles) handle.dispose();
    }
  }

  async runCell(script: string, { timeLimitMs, signal }: RunCellOptions): Promise<CellOutcome> {
    this.#done = undefined;
    this.#interrupted = false;
    let budget = timeLimitMs;
    const slice = (work: () => void): boolean => {
      const start = performance.now();
      this.#deadline = start + budget;
      try {
        work();
      } finally {
        this.#deadline = Infinity;
        budget -= performance.now() - start;
      }
      return this.#interrupted;
    };
    let failure: { name: string; message: string } | undefined;
    const evaluate = () => {
      const result = this.#context.evalCode(script, "cell.js");
      if (result.error) {
        failure = describeGuestError(this.#context.dump(result.error));
        result.error.dispose();
      } else {
        result.value.dispose();
      }
    };
    const pump = () => {
      const result = this.#runtime.executePendingJobs();
      if (result.error) {
        failure = describeGuestError(this.#context.dump(result.error));
        result.error.dispose();
      }
    };
    if (slice(evaluate)) return this.#timeout(timeLimitMs);
    for (;;) {
      if (failure && !this.#done) return { error: failure, poisoned: failure.message === "out of memory" };
      if (slice(pump)) return this.#timeout(timeLimitMs);
      if (this.#done) return this.#done;
      if (signal?.aborted) return { error: { name: "AbortError", message: "the cell was cancelled" }, poisoned: true };
      if (this.#pending.size === 0) {
        return { error: { name: "Error", message: "the cell awaits a promise that can never settle" } };
      }
      await Promise.race(this.#pending.values());
    }
  }

  #timeout(limitMs: number): CellOutcome {
    this.#interrupted = false;
    const seconds = limitMs >= 1000 ? `${limitMs / 1000} s` : `${limitMs} ms`;
    return { error: { name: "TimeoutError", message: `the cell used more than its ${seconds} CPU time limit and was stopped` }, poisoned: true };
  }

  memoryUsage(): number | undefined {
    const handle = this.#runtime.computeMemoryUsage();
    const usage = this.#context.dump(handle);
    handle.dispose();
    return typeof usage?.memory_used_size === "number" ? usage.memory_used_size : undefined;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#statek.dispose();
    this.#context.dispose();
    this.#runtime.dispose();
  }
}

function describeGuestError(error: any): { name: string; message: string } {
  if (error && typeof error === "object") {
    const name = String(error.name ?? "Error");
    const message = String(error.message ?? "");
    if (name === "InternalError" && message === "interrupted") return { name: "TimeoutError", message: "the cell was stopped" };
    return { name, message };
  }
  return { name: "Error", message: `uncaught ${String(error)}` };
}
