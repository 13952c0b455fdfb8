/**
 * @module
 * The thread the TypeScript compiler runs on (`type-check-thread.ts`), as the scheduling thread sees it:
 * started on first use and kept warm, so a check costs the scheduling thread only the message it sends. Checks
 * run one at a time, in order. A check that takes too long or a thread that fails (the compiler out of memory on
 * a pathological cell) leaves that cell unchecked — it runs, and the job is told — and the next check starts a
 * new thread. A thread idle for a while ends; the next check starts it again.
 *
 * Like the sandbox threads, one thread serves the whole process by default ({@link sharedCheckerThread}): a warm
 * compiler holds ~100 MB and takes a second of CPU to start, and what it keeps between checks is only parsed text
 * (nothing of one job is visible to another's check). A cell checked again against the same input (text, earlier
 * cells, variable types, declarations) gets the verdict kept from its first check (`check-cache.ts`), without a
 * message to the thread.
 */
import { Worker } from "node:worker_threads";
import { CheckCache, MAX_CACHED_CHECKS } from "./check-cache.ts";
import type { CellCheckInput, CellCheckOutput, CellTypeError } from "./type-check-result.ts";
import type { CheckRequest, CheckResponse, HeapUsage } from "./type-check-protocol.ts";

export type { HeapUsage } from "./type-check-protocol.ts";

/** How a checker thread runs. */
export interface CheckerThreadOptions {
  /** Longest one check may take; the cell then runs unchecked. @default 20_000 */
  timeoutMs?: number;
  /** The V8 heap limit of the checker's thread, in MiB. @default 1024 */
  maxHeapMb?: number;
  /** How long an idle thread is kept (a cold start costs about a second). @default 600_000 */
  idleMs?: number;
  /** Verdicts kept for a cell checked again against the same input (0: none kept, every check is made). @default 512 */
  cachedChecks?: number;
}

/** What a check said about a cell. */
export type CheckVerdict =
  /** The cell was checked: its type errors (none: it type-checks), and the time the check took on its thread. */
  | { readonly kind: "checked"; readonly errors: readonly CellTypeError[]; readonly durationMs: number }
  /** The cell could not be checked (it does not parse, the check failed or took too long), and why. */
  | { readonly kind: "unchecked"; readonly reason: string; readonly syntax?: true };

interface Pending {
  readonly request: CheckRequest;
  resolve(answer: CheckResponse | undefined, reason?: string): void;
}

const threadFile = new URL(import.meta.url.endsWith(".ts") ? "./type-check-thread.ts" : "./type-check-thread.js", import.meta.url);

/** A checker thread and its queue of checks. */
export class CheckerThread {
  readonly #timeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #idleMs: number;
  readonly #queue: Pending[] = [];
  #worker: Worker | undefined;
  #ready = false;
  #running: { pending: Pending; timer: NodeJS.Timeout } | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #nextId = 1;
  #closed = false;
  /** Threads started so far, and checks answered by a thread (for measurements and tests). */
  #starts = 0;
  #answered = 0;
  #cachedAnswers = 0;
  readonly #cache: CheckCache;

  constructor(options: CheckerThreadOptions = {}) {
    this.#timeoutMs = positive(options.timeoutMs, 20_000, "timeoutMs");
    this.#maxHeapMb = positive(options.maxHeapMb, 1024, "maxHeapMb");
    this.#idleMs = positive(options.idleMs, 600_000, "idleMs");
    const cached = options.cachedChecks ?? MAX_CACHED_CHECKS;
    if (!Number.isInteger(cached) || cached < 0) throw new RangeError(`CheckerThread: cachedChecks must be a whole number ≥ 0, got ${String(cached)}`);
    this.#cache = new CheckCache(cached);
  }

  /** Type-checks one prepared cell. Never rejects: what prevented a check is an `unchecked` verdict. */
  check(input: CellCheckInput): Promise<CheckVerdict> {
    if (this.#closed) return Promise.resolve({ kind: "unchecked", reason: "the type checker is closed" });
    const key = this.#cache.key(input);
    const kept = this.#cache.get(key);
    if (kept) {
      this.#cachedAnswers++;
      return Promise.resolve(verdictOfOutput(kept, 0));
    }
    return new Promise((resolve) => {
      const answered = (answer: CheckResponse | undefined, reason?: string): void => {
        // Only what the input decides is kept: a failed or timed-out check is tried again next time.
        if (answer?.output) this.#cache.set(key, answer.output);
        resolve(answer ? verdictOf(answer) : { kind: "unchecked", reason: reason ?? "no answer" });
      };
      this.#queue.push({ request: { id: this.#nextId++, input }, resolve: answered });
      this.#pump();
    });
  }

  /** The thread's V8 heap, after the checks queued before this call (the thread is started if it is not running). */
  heapUsage(): Promise<HeapUsage> {
    if (this.#closed) return Promise.reject(new Error("the type checker is closed"));
    return new Promise((resolve, reject) => {
      this.#queue.push({
        request: { id: this.#nextId++, heap: true },
        resolve: (answer, reason) => (answer?.heap ? resolve(answer.heap) : reject(new Error(reason ?? "no answer"))),
      });
      this.#pump();
    });
  }

  /** Starts the checker's thread now rather than at the first check. */
  warm(): void {
    if (!this.#closed) this.#thread();
  }

  /** True while a thread is started, warmed and able to take a check at once. */
  get ready(): boolean {
    return this.#ready;
  }

  /** How many times a thread was started (a restart after a failure counts). */
  get threadStarts(): number {
    return this.#starts;
  }

  /** How many checks a thread answered. */
  get checksAnswered(): number {
    return this.#answered;
  }

  /** How many checks were answered with a verdict kept from an earlier check of the same input. */
  get checksCached(): number {
    return this.#cachedAnswers;
  }

  /** Ends the thread for good; checks still queued are answered `unchecked`. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#stop("the type checker is closed");
    for (const pending of this.#queue.splice(0)) pending.resolve(undefined, "the type checker is closed");
    await worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    this.#starts++;
    const worker = new Worker(threadFile, { stdout: false, stderr: false, resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb } });
    this.#worker = worker;
    this.#ready = false;
    worker.unref();
    worker.on("message", (response: CheckResponse) => this.#answer(worker, response));
    worker.on("error", (error) => this.#lost(worker, `the type checker failed: ${error.message}`));
    worker.on("exit", (code) => this.#lost(worker, `the type checker's thread exited (code ${code})`));
    return worker;
  }

  #pump(): void {
    if (this.#running || this.#closed) return;
    // A thread is started for a check, never for an empty queue (a failing thread would be restarted forever).
    if (!this.#worker && this.#queue.length === 0) return;
    const worker = this.#thread();
    if (!this.#ready) return;
    const pending = this.#queue.shift();
    if (!pending) {
      this.#idle(worker);
      return;
    }
    clearTimeout(this.#idleTimer);
    // Held while a check is in flight, so the process waits for its answer.
    worker.ref();
    const timer = setTimeout(() => this.#timedOut(worker), this.#timeoutMs);
    this.#running = { pending, timer };
    worker.postMessage(pending.request);
  }

  #answer(worker: Worker, response: CheckResponse): void {
    if (worker !== this.#worker) return;
    if (response.ready) {
      this.#ready = true;
      return this.#pump();
    }
    const running = this.#running;
    if (!running || running.pending.request.id !== response.id) return;
    clearTimeout(running.timer);
    this.#running = undefined;
    if (!response.heap) this.#answered++;
    worker.unref();
    running.pending.resolve(response);
    this.#pump();
  }

  #timedOut(worker: Worker): void {
    if (worker !== this.#worker) return;
    this.#stop(`type checking took longer than ${this.#timeoutMs.toLocaleString("en-US")} ms`);
    void worker.terminate();
    this.#pump();
  }

  #lost(worker: Worker, reason: string): void {
    if (worker !== this.#worker) return;
    const started = this.#ready;
    this.#stop(reason);
    // A thread that failed before it was ready would fail again: the checks waiting for it go unchecked.
    if (!started) for (const pending of this.#queue.splice(0)) pending.resolve(undefined, reason);
    this.#pump();
  }

  /** Forgets the thread; the check in flight is answered `unchecked` with `reason`. */
  #stop(reason: string): void {
    clearTimeout(this.#idleTimer);
    const running = this.#running;
    this.#running = undefined;
    this.#worker = undefined;
    this.#ready = false;
    if (running) {
      clearTimeout(running.timer);
      running.pending.resolve(undefined, reason);
    }
  }

  #idle(worker: Worker): void {
    // An idle thread never holds the process open (an `unref` made before the thread was online does not last).
    worker.unref();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (worker !== this.#worker || this.#running || this.#queue.length) return;
      this.#worker = undefined;
      this.#ready = false;
      void worker.terminate();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}

function verdictOf(response: CheckResponse): CheckVerdict {
  const output = response.output;
  if (!output) return { kind: "unchecked", reason: `the type check failed: ${response.failure ?? "no answer"}` };
  return verdictOfOutput(output, response.durationMs ?? 0);
}

/** The verdict of what a check found; `durationMs` is the check's time on its thread (0: a kept verdict). */
function verdictOfOutput(output: CellCheckOutput, durationMs: number): CheckVerdict {
  if (output.syntax) return { kind: "unchecked", reason: "the cell does not parse", syntax: true };
  if (output.unchecked !== undefined) return { kind: "unchecked", reason: output.unchecked };
  return { kind: "checked", errors: output.errors, durationMs };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) throw new RangeError(`CheckerThread: ${name} must be a positive number, got ${String(value)}`);
  return value;
}

/** Made at load: a checker thread starts its thread only at its first check. */
const SHARED_CHECKER_THREAD = new CheckerThread();

/** The process's checker thread, which every `TypeChecker` uses unless given its own. */
export function sharedCheckerThread(): CheckerThread {
  return SHARED_CHECKER_THREAD;
}
