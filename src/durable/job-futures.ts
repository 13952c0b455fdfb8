/**
 * @module
 * The durable futures one cell of a job waits for: `sleep`/`until` (timers), `waitForMessage`
 * (the job's inbox), a tool's `ctx.future`, approval requests (`approval-waits.ts`) and child jobs
 * (`child-waits.ts`). Each is a store row, settled once by whoever comes first; a cell that waits only for
 * such rows suspends, and its job is stepped again when one settles (or a timer is due), replaying the cell
 * up to the wait, which then yields.
 *
 * Keys are deterministic, so a replay finds the same rows: a timer is `${jobId}:${cell}:${seq}` (the message
 * that waits), the n-th message pushed to a job is `${jobId}:message:${n}` (pushes and waits are both numbered
 * in order, so the n-th `waitForMessage()` of the job's life gets the n-th message, whichever comes first).
 */
import type { Fence, FutureRow, JobRow, JsonValue, Store } from "../store/store.ts";
import type { ApprovalDecision } from "../tools/approval.ts";
import type { ChildHandleInfo, FutureOutcome, FutureWaits } from "../workspace/cell-host.ts";
import { childReply } from "../workspace/wait-messages.ts";
import { authorizeApprovedCall, openApproval, requestApprovalOf, type ApprovalWaitContext } from "./approval-waits.ts";
import { openChild, startChild, type ChildWaitContext } from "./child-waits.ts";
import { answerSubTask } from "./sub-tasks.ts";
import type { FutureSignals } from "./future-signals.ts";
import { TimeoutError } from "../errors/timeout-error.ts";
import { errorInfo } from "../errors/guest-entry-error.ts";
import { armLongTimer, unrefTimer } from "../workspace/long-timer.ts";

/** Waits shorter than this stay in memory instead of suspending the job. */
export const SHORT_WAIT_MS = 100;

/** The longest wait, 100,000 days (as `sleep` in agent code caps it): a longer finite one waits that long. */
const MAX_WAIT_MS = 8_640_000_000_000;

/** The key of the n-th message pushed to job `jobId`. */
export function messageKey(jobId: string, n: number): string {
  return `${jobId}:message:${n}`;
}

/** A checked future's tool, arguments and interval, as the tool's reply carries them (host-made), else `undefined`. */
function checkSpecOf(value: unknown): { tool: string; args: JsonValue; everyMs: number } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { tool, args, everyMs } = value as { tool?: unknown; args?: unknown; everyMs?: unknown };
  if (typeof tool !== "string" || typeof everyMs !== "number" || typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return { tool, args: args as JsonValue, everyMs };
}

/** How a settled future reads to the guest. */
export function outcomeOf(row: FutureRow): FutureOutcome | undefined {
  switch (row.state) {
    case "waiting":
      return undefined;
    case "resolved":
      return { value: row.value };
    case "rejected": {
      const value = row.value as { name?: unknown; message?: unknown } | null;
      const name = typeof value?.name === "string" ? value.name : "Error";
      const message = typeof value?.message === "string" ? value.message : typeof row.value === "string" ? row.value : "the future was rejected";
      return { error: { name, message } };
    }
    case "cancelled":
      return { error: { name: "CancelledError", message: typeof row.value === "string" ? row.value : "the wait was cancelled" } };
  }
}

/**
 * The store calls of a cell's durable waits. The step hands in a view whose calls are retried while they fail
 * transiently (`jobs/store-retries.ts`): a wait never throws a busy store or a dropped connection into agent
 * code; a failure past the retries stops the step instead (it is abandoned, and the job resumable).
 */
export type FutureStore = Pick<Store, "getFuture" | "createFutures" | "settleFuture" | "getJob" | "insertJob" | "listJobs">;

/** What a cell's futures need from its step. */
export interface JobFuturesOptions {
  store: FutureStore;
  jobId: string;
  cell: number;
  fence: Fence;
  /** Messages of the inbox that earlier cells took. */
  messagesTaken: number;
  signals: FutureSignals;
  /** The n-th pushed message if the job's record has it (a push whose settlement was lost to a crash). */
  inboxMessage(n: number): JsonValue | undefined;
  now?: () => number;
  /** The job's role (approval requests name it). */
  role?: string;
  /** The job's registered error handlers, as its row holds them: its children inherit them. */
  errorHandlers?: JsonValue;
  /** Settles this job's future of a child that ended without doing so (`jobs/step/child-jobs.ts`). */
  childEnded?(child: JobRow): Promise<void>;
}

/** The {@link FutureWaits} of one cell of one job. */
export class JobFutures implements FutureWaits {
  readonly #options: JobFuturesOptions;
  #messageWaits = 0;
  readonly #stops: Array<() => void> = [];
  readonly #watched = new Set<string>();
  readonly #awaited = new Set<string>();

  constructor(options: JobFuturesOptions) {
    this.#options = options;
  }

  /** Messages of the inbox this cell took (the step adds them to the job's count when the cell is over). */
  get messagesTaken(): number {
    return this.#messageWaits;
  }

  /**
   * Keys of the approval requests and children this cell opened or started, settled or not: the job records
   * their outcome in its history once each (`jobs/step/settled-waits.ts`), whether it was known before this
   * attempt at the cell (a retried step) or comes later, and whether or not a cell awaits it then.
   */
  get watched(): readonly string[] {
    return [...this.#watched];
  }

  /**
   * Keys of every future this cell began to wait for and had no outcome for yet — timers, messages, application
   * futures, approval requests and children alike. A suspending step names them in `wakeIfSettled`: one settled
   * after the cell looked (an approval decided in another process while the step still ran) no longer shows as
   * waiting, and without its key the job would sleep with nothing left to wake it.
   */
  get awaited(): string[] {
    return [...this.#awaited];
  }

  replayed(seq: number, kind: string, data?: unknown): void {
    if (kind === "message") this.#messageWaits++;
    const field = (name: string) => (typeof data === "object" && data !== null ? (data as Record<string, unknown>)[name] : undefined);
    // Children and approval requests of an earlier attempt at this cell stay watched, their outcome known or
    // not: it is recorded once, whichever attempt commits.
    const watched =
      kind === "child-started" ? field("id")
      : kind === "approval" ? `${this.#options.jobId}:${this.#options.cell}:${seq}:approval`
      : kind === "tool-approval" || kind === "child" ? field("key")
      : undefined;
    if (typeof watched === "string") this.#watched.add(watched);
  }

  async open(seq: number, kind: string, data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
    switch (kind) {
      case "timer":
        return this.#timer(seq, data, settle);
      case "message":
        return this.#message(settle);
      case "external":
        return this.#external(data, settle);
      case "approval":
      case "tool-approval": {
        // `requestApproval(summary)` from agent code (the request is made here, keyed by its call), or a tool's
        // call that needs approval (the host made the request).
        const request = kind === "tool-approval" ? data : requestApprovalOf(`${this.#options.jobId}:${this.#options.cell}:${seq}:approval`, data);
        const opened = await openApproval(this.#approvalContext(), request, settle);
        // Watched, decided or not: the decision goes into the job's history once.
        const key = typeof request === "object" && request !== null ? (request as { key?: unknown }).key : undefined;
        if (typeof key === "string" && opened.durable) {
          this.#watched.add(key);
          if (!opened.outcome) this.#awaited.add(key);
        }
        return opened;
      }
      case "child": {
        // A tool's reply that starts a child (an async tool's `ctx.startJob`) carries its rows: create it first.
        if (typeof data === "object" && data !== null && "spec" in data) {
          const info = await this.startChild(data);
          return { outcome: { reply: childReply(info) }, durable: false };
        }
        const opened = await openChild(this.#childContext(), data, settle);
        const key = typeof data === "object" && data !== null ? (data as { key?: unknown }).key : undefined;
        if (typeof key === "string" && opened.durable) {
          this.#watched.add(key);
          if (!opened.outcome) this.#awaited.add(key);
        }
        return opened;
      }
      default:
        return { outcome: { error: { name: "TypeError", message: `unknown wait '${kind}'` } }, durable: false };
    }
  }

  async #timer(seq: number, data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
    const given = typeof data === "object" && data !== null ? (data as { ms?: unknown }).ms : undefined;
    // Agent code is hostile: anything but a finite count of milliseconds is refused (never a wait that ends at once).
    if (typeof given !== "number" || !Number.isFinite(given) || given < 0) {
      return { outcome: { error: { name: "TypeError", message: `sleep(ms): expected a finite number of milliseconds ≥ 0, got ${typeof given === "number" ? String(given) : typeof given}` } }, durable: false };
    }
    const ms = Math.min(given, MAX_WAIT_MS);
    const now = this.#now();
    if (ms < SHORT_WAIT_MS) {
      const timer = setTimeout(() => settle({ value: undefined }), ms);
      this.#stops.push(() => clearTimeout(timer));
      return { durable: false };
    }
    const { store, jobId, cell, fence } = this.#options;
    const key = `${jobId}:${cell}:${seq}`;
    let row = await store.getFuture(key);
    if (!row || row.jobId === null) {
      await store.createFutures(jobId, fence, [{ key, jobId, kind: "timer", wakeAt: Math.ceil(now + ms), data: { ms } }]);
      row = await store.getFuture(key);
    }
    if (!row) return { outcome: { error: { name: "Error", message: "the timer could not be stored" } }, durable: false };
    // A timer's value is nothing: `await sleep(ms)` yields undefined, whoever settled it.
    if (row.state !== "waiting") return { outcome: "error" in (outcomeOf(row) ?? {}) ? outcomeOf(row)! : { value: undefined }, durable: true };
    const due = row.wakeAt ?? now;
    if (due <= now) return { outcome: await this.#settleDue(key), durable: true };
    // While the cell still runs (it waits for other things too), the timer fires here — however far off it is.
    this.#stops.push(armLongTimer(due - now, () => void this.#settleDue(key).then(settle, () => {}), unrefTimer, () => this.#now()));
    this.#awaited.add(key);
    return { durable: true };
  }

  async #settleDue(key: string): Promise<FutureOutcome> {
    const settled = await this.#options.store.settleFuture(key, { state: "resolved", value: null, door: "time" });
    const outcome = outcomeOf(settled.future);
    return outcome && "error" in outcome ? outcome : { value: undefined };
  }

  async #message(settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
    const { store, jobId, fence, signals } = this.#options;
    const n = this.#options.messagesTaken + this.#messageWaits++;
    const key = messageKey(jobId, n);
    let row = await store.getFuture(key);
    if (!row || row.jobId === null) {
      await store.createFutures(jobId, fence, [{ key, jobId, kind: "message", wakeAt: null, data: { n } }]);
      row = await store.getFuture(key);
    }
    const known = row ? outcomeOf(row) : undefined;
    if (known) return { outcome: known, durable: true };
    // A message recorded in the job whose settlement was lost (its pusher stopped in between) still counts.
    const recorded = this.#options.inboxMessage(n);
    if (recorded !== undefined) {
      const settled = await store.settleFuture(key, { state: "resolved", value: recorded, door: "message" });
      return { outcome: outcomeOf(settled.future) ?? { value: recorded }, durable: true };
    }
    this.#stops.push(signals.once(key, settle));
    this.#awaited.add(key);
    return { durable: true };
  }

  // A tool's `ctx.future(key, { timeoutMs })`: the application settles it; a timeout rejects it. A checked one
  // (its tool has `check`) keeps the tool and arguments a worker checks it with (`future-checks.ts`).
  async #external(data: unknown, settle: (outcome: FutureOutcome) => void): Promise<{ outcome?: FutureOutcome; durable: boolean }> {
    const { store, jobId, fence, signals } = this.#options;
    const spec = typeof data === "object" && data !== null ? (data as { key?: unknown; timeoutMs?: unknown; check?: unknown }) : {};
    if (typeof spec.key !== "string") return { outcome: { error: { name: "TypeError", message: "a future without a key" } }, durable: false };
    const key = spec.key;
    const timeoutMs = typeof spec.timeoutMs === "number" ? spec.timeoutMs : undefined;
    const check = checkSpecOf(spec.check);
    const kind = check ? "checked" : "external";
    let row = await store.getFuture(key);
    if (!row || row.jobId === null) {
      const wakeAt = timeoutMs === undefined ? null : Math.ceil(this.#now() + Math.min(timeoutMs, MAX_WAIT_MS));
      const kept = { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(check ?? {}) };
      await store.createFutures(jobId, fence, [{ key, jobId, kind, wakeAt, data: Object.keys(kept).length ? kept : null }]);
      row = await store.getFuture(key);
    }
    if (!row) return { outcome: { error: { name: "Error", message: `the future ${key} could not be stored` } }, durable: false };
    if (row.jobId !== jobId) return { outcome: { error: { name: "Error", message: `the future ${key} belongs to another job` } }, durable: false };
    if (row.kind !== "external" && row.kind !== "checked") return { outcome: { error: { name: "Error", message: `the key ${key} is this job's ${row.kind} wait, not an application's future` } }, durable: false };
    const known = outcomeOf(row);
    if (known) return { outcome: known, durable: true };
    if (row.wakeAt !== null) {
      const left = row.wakeAt - this.#now();
      if (left <= 0) return { outcome: await this.#timeOut(key, timeoutMs ?? 0), durable: true };
      this.#stops.push(armLongTimer(left, () => void this.#timeOut(key, timeoutMs ?? 0).then(settle, () => {}), unrefTimer, () => this.#now()));
    }
    this.#stops.push(signals.once(key, settle));
    this.#awaited.add(key);
    return { durable: true };
  }

  async #timeOut(key: string, timeoutMs: number): Promise<FutureOutcome> {
    const error = errorInfo(new TimeoutError({ kind: "future", key, timeoutMs }));
    const settled = await this.#options.store.settleFuture(key, { state: "rejected", value: error, door: "time" });
    return outcomeOf(settled.future) ?? { error };
  }

  async startChild(data: unknown): Promise<ChildHandleInfo> {
    const info = await startChild(this.#childContext(), data);
    // Watched, ended or not: the job's history says once how it ended.
    this.#watched.add(info.id);
    return info;
  }

  task(action: string, id: string): Promise<string> {
    // A handle found again is watched like one this cell started: the job's history says once how it ended.
    return answerSubTask(this.#options, action, id, (child) => this.#watched.add(child));
  }

  approvedCall(key: string, tool: string, callKey: string): Promise<ApprovalDecision & { args: string }> {
    return authorizeApprovedCall(this.#approvalContext(), key, tool, callKey);
  }

  #approvalContext(): ApprovalWaitContext {
    const { store, jobId, cell, fence, signals, role = "" } = this.#options;
    return { store, jobId, role, cell, fence, signals, now: () => this.#now(), keep: (stop) => this.#stops.push(stop) };
  }

  #childContext(): ChildWaitContext {
    const { store, jobId, fence, signals, errorHandlers = null, childEnded } = this.#options;
    return { store, jobId, fence, signals, errorHandlers, ...(childEnded ? { childEnded } : {}), keep: (stop) => this.#stops.push(stop) };
  }

  /** Stops listening and timing (the cell is over or suspended). */
  close(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }

  #now(): number {
    return this.#options.now ? this.#options.now() : Date.now();
  }
}
