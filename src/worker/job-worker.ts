/**
 * @module
 * The worker (DESIGN.md §10): claims runnable jobs under leases and steps at most `maxConcurrency` of them at
 * once, until it is stopped. It knows the store and a function that steps one claimed job; what a step does is
 * the job runner's (`jobs/`), which hands this scheduler its step function (`statek.worker()`).
 *
 * Wake-ups are events, never scans: a claim (an index read of runnable jobs) runs when a slot frees, when this
 * process submits a job, pushes a message or settles a future (`FutureSignals.onWake`), when the one timer on
 * the earliest `wakeAt` fires, when another process's commit put an event in the outbox (`OutboxWatch`), and
 * on a slow safety tick that takes over jobs whose holder died (their lease expired; no event says so). At
 * its start and on that tick, a worker also ends the leases of lease holders it can prove dead — worker
 * processes of this machine that no longer exist (`gone-owners.ts`) — so a restarted worker takes over its
 * predecessor's jobs at once instead of after `leaseMs`. A suspended job costs the worker nothing: no VM, no
 * timer, no closure — only its rows.
 */
import type { FutureSignals } from "../durable/future-signals.ts";
import { LeaseLostError } from "../errors/lease-lost-error.ts";
import type { JobStatus, Lease, Store } from "../store/store.ts";
import { expireGoneOwners } from "./gone-owners.ts";
import { OutboxPruner } from "./outbox-pruner.ts";
import { OutboxWatch } from "./outbox-watch.ts";
import { WakeTimer } from "./wake-timer.ts";
import { WorkerCounters, type WorkerStats } from "./worker-stats.ts";

/** What one step of a claimed job left it as. */
export interface WorkerStepOutcome {
  /** The job's status before the step. */
  previous: JobStatus;
  status: JobStatus;
  /** For a `SUSPENDED` job, when it becomes runnable by itself, else `null`. */
  wakeAt: number | null;
  /** The job is still runnable and the step kept its lease: the next step runs under it (no claim in between). */
  leaseKept: boolean;
}

/** Something a worker did, for logs and status lines. */
export type WorkerActivity =
  | { kind: "step-end"; jobId: string; previous: JobStatus; status: JobStatus; ms: number }
  | { kind: "step-error"; jobId: string; error: unknown }
  | { kind: "worker-error"; error: unknown }
  /** The leases of a dead worker process of this machine were ended: its jobs are claimable at once. */
  | { kind: "owner-gone"; owner: string; leases: number }
  /**
   * A step's lease went unrenewed for longer than it lasts — this worker's event loop stalled (a cell or a tool
   * blocking it, the process stopped): another worker may have taken the job over, and its calls in flight are
   * then in doubt. Raise `leaseMs`, or find what blocks the event loop.
   */
  | { kind: "lease-late"; jobId: string; unrenewedMs: number; leaseMs: number };

/** What the scheduler needs from the job runner. */
export interface WorkerHost {
  store: Store;
  /** The owner of the leases the worker takes. */
  owner: string;
  /** In-process news of jobs that may have become runnable. */
  signals: FutureSignals;
  /**
   * Steps the job of `lease` once under that lease; `signal` aborts the step (nothing of it is committed).
   * The lease is released, unless the outcome says `leaseKept`: then the next call with the same lease steps
   * the job again under it. Rejects when the step could not commit (the job is then claimable again).
   */
  runStep(lease: Lease, signal: AbortSignal): Promise<WorkerStepOutcome>;
  /** Releases a lease the last step of its job kept (`leaseKept`) when the worker will not step it again. */
  releaseKept(lease: Lease): Promise<void>;
}

/** How a worker runs. */
export interface WorkerSchedule {
  /** Roles of the jobs it claims. */
  roles: readonly string[];
  /** Steps at once at most. */
  maxConcurrency: number;
  leaseMs: number;
  /** How often it looks for other processes' commits (`Store.dataVersion`, then the outbox). */
  pollIntervalMs: number;
  /** How often it claims without being told to (jobs whose holder died; timers of jobs it never saw). */
  safetyIntervalMs: number;
  /** Events of the outbox older than this are deleted while the worker runs (0: never). */
  eventRetentionMs: number;
  onActivity?: (activity: WorkerActivity) => void;
}

/** How long a stopping worker waits for aborted steps to release their leases before releasing them itself. */
const ABORT_WAIT_MS = 2_000;
/** Backoff after consecutive step errors (a store outage): from this, doubling, up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 5_000;

/** A step in flight. */
interface Slot {
  lease: Lease;
  abort: AbortController;
  done: Promise<void>;
}

/** The scheduler of one worker. */
export class JobWorker {
  readonly #host: WorkerHost;
  readonly #schedule: WorkerSchedule;
  readonly #slots = new Map<string, Slot>();
  readonly #counters = new WorkerCounters();
  readonly #timer: WakeTimer;
  readonly #watch: OutboxWatch | undefined;
  readonly #pruner: OutboxPruner;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  #pumping: Promise<void> | undefined;
  #again = false;
  /** False when the timer may miss the earliest `wakeAt` (it fired, a tick passed): the next short claim asks the store. */
  #timerKnown = false;
  #safety: NodeJS.Timeout | undefined;
  #stopWaking: (() => void) | undefined;
  #consecutiveErrors = 0;
  #backoffUntil = 0;
  #backoffTimer: NodeJS.Timeout | undefined;
  #stopping: Promise<void> | undefined;
  /** The look for dead lease holders in progress, if any. */
  #sweeping: Promise<void> | undefined;

  constructor(host: WorkerHost, schedule: WorkerSchedule) {
    this.#host = host;
    this.#schedule = schedule;
    this.#timer = new WakeTimer(() => {
      this.#timerKnown = false;
      this.#kick();
    });
    this.#pruner = new OutboxPruner(host.store, {
      retentionMs: schedule.eventRetentionMs,
      onError: (error) => this.#report({ kind: "worker-error", error }),
    });
    if (host.store.supportsMultipleProcesses) {
      this.#watch = new OutboxWatch(host.store, {
        intervalMs: schedule.pollIntervalMs,
        onEvents: () => {
          this.#timerKnown = false;
          this.#kick();
        },
        onError: (error) => this.#report({ kind: "worker-error", error }),
      });
    }
  }

  /** The worker's counters now. */
  get stats(): WorkerStats {
    return this.#counters.snapshot();
  }

  /** Starts claiming; resolves once the first claim has been made. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error(`worker.start: this worker was started already (it is ${this.#state}); create another with statek.worker()`);
    this.#state = "starting";
    this.#stopWaking = this.#host.signals.onWake(() => this.#kick());
    try {
      await this.#watch?.start();
    } catch (error) {
      this.#stopWaking();
      this.#state = "stopped";
      throw error;
    }
    this.#safety = setInterval(() => {
      this.#timerKnown = false;
      this.#kick();
      this.#sweep();
    }, this.#schedule.safetyIntervalMs);
    this.#state = "running";
    this.#pruner.start();
    await this.#sweep();
    await this.#kick();
  }

  /** Ends the leases of dead worker processes of this machine; a claim follows when any were ended. */
  #sweep(): Promise<void> {
    this.#sweeping ??= expireGoneOwners(this.#host.store, this.#host.owner)
      .then((gone) => {
        for (const { owner, leases } of gone) this.#report({ kind: "owner-gone", owner, leases });
        if (gone.length > 0) void this.#kick();
      })
      .catch((error: unknown) => this.#report({ kind: "worker-error", error }))
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /**
   * Stops claiming, lets the steps in flight finish for up to `graceMs`, then aborts the rest (they commit
   * nothing; their leases are released, so another worker can take the jobs at once). Resolves once stopped.
   */
  stop(graceMs: number): Promise<void> {
    this.#stopping ??= this.#stop(graceMs);
    return this.#stopping;
  }

  async #stop(graceMs: number): Promise<void> {
    if (this.#state === "new") {
      this.#state = "stopped";
      return;
    }
    this.#state = "stopping";
    this.#stopWaking?.();
    clearInterval(this.#safety);
    clearTimeout(this.#backoffTimer);
    this.#timer.clear();
    await this.#sweeping;
    await this.#pruner.stop();
    await this.#watch?.stop();
    await this.#pumping;
    const steps = () => Promise.all([...this.#slots.values()].map((slot) => slot.done));
    if (this.#slots.size) await within(steps(), graceMs);
    for (const slot of this.#slots.values()) slot.abort.abort(new Error("the worker is stopping"));
    if (this.#slots.size) await within(steps(), ABORT_WAIT_MS);
    // A step that ignores its abort (a cell in a native loop until its watchdog) loses its lease here: whatever
    // it tries to write afterwards is refused by the fence.
    await Promise.all([...this.#slots.values()].map(({ lease }) => this.#host.store.releaseLease(lease.jobId, lease).catch(() => undefined)));
    this.#timer.clear();
    this.#state = "stopped";
  }

  /** Claims for the free slots now, or once the claim in progress has ended. */
  #kick(): Promise<void> {
    if (this.#state !== "running") return Promise.resolve();
    if (this.#pumping) {
      this.#again = true;
      return this.#pumping;
    }
    this.#pumping = this.#pump()
      .catch((error: unknown) => this.#report({ kind: "worker-error", error }))
      .finally(() => {
        this.#pumping = undefined;
      });
    return this.#pumping;
  }

  async #pump(): Promise<void> {
    do {
      this.#again = false;
      if (this.#state !== "running") return;
      const free = this.#schedule.maxConcurrency - this.#slots.size;
      if (free <= 0) continue;
      if (Date.now() < this.#backoffUntil) {
        this.#backoffTimer ??= setTimeout(() => {
          this.#backoffTimer = undefined;
          void this.#kick();
        }, this.#backoffUntil - Date.now());
        return;
      }
      const { store, owner } = this.#host;
      const leases = await store.claimRunnable(owner, this.#schedule.leaseMs, free, { roles: this.#schedule.roles });
      for (const lease of leases) {
        if (this.#state === "running") this.#run(lease);
        else await store.releaseLease(lease.jobId, lease).catch(() => undefined);
      }
      // Fewer than asked: nothing else is runnable now, so the next thing to happen may be a timer.
      if (leases.length < free && !this.#timerKnown && this.#state === "running") await this.#refreshTimer();
    } while (this.#again);
  }

  /** Arms the timer on the store's earliest `wakeAt` (an index read, never a scan). */
  async #refreshTimer(): Promise<void> {
    this.#timerKnown = true;
    const at = await this.#host.store.nextWakeAt({ roles: this.#schedule.roles });
    if (this.#state !== "running") return;
    // A time already past is a job that became due since the claim: claim again shortly, not in a tight loop.
    this.#timer.set(at === null ? null : Math.max(at, Date.now() + 5));
  }

  #run(lease: Lease): void {
    const abort = new AbortController();
    this.#counters.running++;
    const done = this.#steps(lease, abort.signal).finally(() => {
      this.#counters.running--;
      this.#slots.delete(lease.jobId);
      void this.#kick();
    });
    this.#slots.set(lease.jobId, { lease, abort, done });
  }

  /**
   * Steps the job of `lease` while it stays runnable under the same lease (a job that keeps working keeps its
   * slot and its warm workspace in this process; with several workers, releasing it after every step would hand
   * it to whichever claims first, which rebuilds its workspace), until it suspends, ends, fails or the worker stops.
   */
  async #steps(lease: Lease, signal: AbortSignal): Promise<void> {
    for (;;) {
      const started = Date.now();
      let outcome: WorkerStepOutcome;
      try {
        outcome = await this.#host.runStep(lease, signal);
      } catch (error) {
        this.#counters.stepErrors++;
        this.#report({ kind: "step-error", jobId: lease.jobId, error });
        // A lost lease or a stop is nobody's failure; anything else (a store outage) slows the claims down.
        if (error instanceof LeaseLostError || signal.aborted) return;
        this.#consecutiveErrors++;
        this.#backoffUntil = Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.#consecutiveErrors - 1));
        return;
      }
      this.#consecutiveErrors = 0;
      this.#counters.stepEnded(outcome.previous, outcome.status);
      if (outcome.status === "SUSPENDED" && outcome.wakeAt !== null) this.#timer.consider(outcome.wakeAt);
      this.#report({ kind: "step-end", jobId: lease.jobId, previous: outcome.previous, status: outcome.status, ms: Date.now() - started });
      if (!outcome.leaseKept) return;
      if (this.#state !== "running" || signal.aborted) {
        await this.#host.releaseKept(lease).catch((error: unknown) => this.#report({ kind: "worker-error", error }));
        return;
      }
    }
  }

  #report(activity: WorkerActivity): void {
    try {
      this.#schedule.onActivity?.(activity);
    } catch {
      // A listener that throws must not stop the worker.
    }
  }
}

/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
