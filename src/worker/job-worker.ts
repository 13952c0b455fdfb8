/**
 * @module
 * The worker: claims runnable jobs under leases and steps at most `maxConcurrency` of them at
 * once, until it is stopped. It knows the store and a function that steps one claimed job; what a step does is
 * the job runner's (`jobs/`), which hands this scheduler its step function (`statek.worker()`).
 *
 * Wake-ups are events, never scans. A claim (an index read of runnable jobs) runs when a slot frees, when this
 * process submits a job, pushes a message or settles a future (`FutureSignals.onWake`), and when the one timer
 * fires. The timer is armed on what `Store.nextClaim` says: the earliest `wakeAt` of a suspended job or the
 * earliest end of another worker's lease (if that worker died, its job is claimable then). A wake-up hint of the
 * store (`Store.subscribeWakeups`: another process's commit, heard through `LISTEN/NOTIFY` or `data_version`,
 * or a write of this store object) makes the worker ask `nextClaim` — one read — and claim only when a job is
 * claimable now. While some job is leased, a safety tick also ends the leases of holders it can prove dead —
 * worker processes of this machine that no longer exist (`gone-owners.ts`), so a restarted worker takes over
 * its predecessor's jobs at once instead of after `leaseMs` — and asks `nextClaim` again; with nothing leased,
 * the store's own hints are enough, and an idle worker costs the store nothing but them. A suspended job
 * costs the worker nothing: no VM, no timer, no closure — only its rows.
 */
import type { FutureSignals } from "../durable/future-signals.ts";
import { LeaseLostError } from "../errors/lease-lost-error.ts";
import type { JobStatus, Lease, Store } from "../store/store.ts";
import { expireGoneOwners } from "./gone-owners.ts";
import { OutboxPruner } from "./outbox-pruner.ts";
import { WakeTimer } from "./wake-timer.ts";
import { WorkerCounters, type AgentFeedStats, type WorkerStats } from "./worker-stats.ts";

/** What one step of a claimed job left it as. */
export interface WorkerStepOutcome {
  /** The job's status before the step. */
  previous: JobStatus;
  status: JobStatus;
  /** For a `SUSPENDED` job, when it becomes runnable by itself, else `null`. */
  wakeAt: number | null;
  /** The job is still runnable and the step kept its lease: the next step runs under it (no claim in between). */
  leaseKept: boolean;
  /** The job's agent role, when known (per-agent stats). */
  role?: string;
}

/**
 * Work a worker does beside claiming, started and stopped with it: the job runner's agentic loops and agent
 * events, which create jobs when slots are free (`jobs/loops/agent-feeder.ts`).
 */
export interface WorkerCompanion {
  /** Starts, with the worker's {@link WorkerControl}. */
  start(control: WorkerControl): void;
  /** A step ended and its slot is free. */
  slotFreed(): void;
  /** Stops; resolves once nothing of it runs any more. */
  stop(): Promise<void>;
  /** Its counts per agent role, for the worker's stats. */
  stats(): Record<string, AgentFeedStats>;
}

/** What a {@link WorkerCompanion} may ask of its worker. */
export interface WorkerControl {
  /** How many steps the worker could start now. */
  freeSlots(): number;
  /** Who the worker claims as, and for how long: jobs created already leased to it need no claim. */
  readonly claimAs: { owner: string; leaseMs: number };
  /** Steps the jobs of leases the worker holds already (created leased to it); any it has no slot for are released. */
  adopt(leases: readonly Lease[]): Promise<void>;
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
  | { kind: "lease-late"; jobId: string; unrenewedMs: number; leaseMs: number }
  /** An agentic loop or an agent's events made jobs (their ids, in order). */
  | { kind: "agent-jobs"; role: string; source: "loop" | "events"; jobIds: string[] }
  /** An agentic loop's `queueSize` failed or timed out; the loop goes on. */
  | { kind: "loop-error"; role: string; error: unknown }
  /** An agent's events cannot become jobs (no variable to bind them to, a damaged event): they stay queued. */
  | { kind: "agent-error"; role: string; error: unknown }
  /** A checked future's `check(args)` threw (it is tried again later, backing off), or could not be run. */
  | { kind: "check-error"; key: string; jobId: string | null; error: unknown };

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
  /** Runs beside the scheduler while it runs (agentic loops, agent events). */
  companion?: WorkerCompanion;
}

/** How a worker runs. */
export interface WorkerSchedule {
  /** Roles of the jobs it claims. */
  roles: readonly string[];
  /** Steps at once at most. */
  maxConcurrency: number;
  leaseMs: number;
  /** How often, while some job is leased, it looks for holders that died and asks the store what is claimable. */
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
/** With nothing leased and no hint, how long the worker goes without asking the store (a safety net only). */
const IDLE_LOOK_MS = 60_000;

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
  readonly #pruner: OutboxPruner;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  #pumping: Promise<void> | undefined;
  #again = false;
  /** The next pump claims at once (a slot freed, the timer fired, this process made a job runnable). */
  #claimNow = false;
  /** The next pump asks `nextClaim` first (a hint: something may have changed). */
  #lookNeeded = false;
  /** What the last `nextClaim` said about leases, and when it was asked. */
  #leased = false;
  #lookedAt = 0;
  #safety: NodeJS.Timeout | undefined;
  #stopWaking: (() => void) | undefined;
  #stopHints: (() => void) | undefined;
  #consecutiveErrors = 0;
  #backoffUntil = 0;
  #backoffTimer: NodeJS.Timeout | undefined;
  #stopping: Promise<void> | undefined;
  /** The look for dead lease holders in progress, if any. */
  #sweeping: Promise<void> | undefined;

  constructor(host: WorkerHost, schedule: WorkerSchedule) {
    this.#host = host;
    this.#schedule = schedule;
    this.#timer = new WakeTimer(() => void this.#kick("look"));
    this.#pruner = new OutboxPruner(host.store, {
      retentionMs: schedule.eventRetentionMs,
      onError: (error) => this.#report({ kind: "worker-error", error }),
    });
  }

  /** The worker's counters now. */
  get stats(): WorkerStats {
    return this.#counters.snapshot(this.#host.companion?.stats());
  }

  /** Starts claiming; resolves once the first claim has been made. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error(`worker.start: this worker was started already (it is ${this.#state}); create another with statek.worker()`);
    this.#state = "starting";
    this.#stopWaking = this.#host.signals.onWake(() => void this.#kick("claim"));
    try {
      this.#stopHints = this.#host.store.subscribeWakeups(() => void this.#kick("look"));
    } catch (error) {
      this.#stopWaking();
      this.#state = "stopped";
      throw error;
    }
    this.#safety = setInterval(() => this.#safetyTick(), this.#schedule.safetyIntervalMs);
    this.#state = "running";
    this.#pruner.start();
    await this.#sweep();
    await this.#kick("claim");
    this.#host.companion?.start({
      freeSlots: () => (this.#state === "running" ? this.#schedule.maxConcurrency - this.#slots.size : 0),
      claimAs: { owner: this.#host.owner, leaseMs: this.#schedule.leaseMs },
      adopt: (leases) => this.#adopt(leases),
    });
  }

  /**
   * While some job is leased: ends the leases of holders proven dead, and asks what is claimable (a lease the
   * worker has not heard of may end). With nothing leased, the store's hints say when to look; the tick then
   * only looks after a long silence.
   */
  #safetyTick(): void {
    // Its own steps are leased jobs: a worker kept busy since it last looked (its slots full, no look needed) knows
    // something is leased even when its last look, made before the jobs came, said nothing was.
    if (this.#leased || this.#slots.size > 0) {
      void this.#sweep();
      void this.#kick("look");
    } else if (Date.now() - this.#lookedAt >= IDLE_LOOK_MS) {
      void this.#kick("look");
    }
  }

  /** Ends the leases of dead worker processes of this machine; a claim follows when any were ended. */
  #sweep(): Promise<void> {
    this.#sweeping ??= expireGoneOwners(this.#host.store, this.#host.owner)
      .then((gone) => {
        for (const { owner, leases } of gone) this.#report({ kind: "owner-gone", owner, leases });
        if (gone.length > 0) void this.#kick("claim");
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
    await this.#host.companion?.stop();
    this.#stopWaking?.();
    this.#stopHints?.();
    clearInterval(this.#safety);
    clearTimeout(this.#backoffTimer);
    this.#timer.clear();
    await this.#sweeping;
    await this.#pruner.stop();
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

  /**
   * Claims for the free slots now (`claim`), or asks the store whether anything is claimable first (`look`: a
   * hint, which may be for nothing) — now, or once the pump in progress has ended.
   */
  #kick(reason: "claim" | "look"): Promise<void> {
    if (this.#state !== "running") return Promise.resolve();
    if (reason === "claim") this.#claimNow = true;
    else this.#lookNeeded = true;
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
          void this.#kick("claim");
        }, this.#backoffUntil - Date.now());
        return;
      }
      let claim = this.#claimNow;
      const look = this.#lookNeeded;
      this.#claimNow = this.#lookNeeded = false;
      if (!claim && look) claim = await this.#look();
      if (!claim || this.#state !== "running") continue;
      const { store, owner } = this.#host;
      const leases = await store.claimRunnable(owner, this.#schedule.leaseMs, free, { roles: this.#schedule.roles });
      for (const lease of leases) {
        if (this.#state === "running") this.#run(lease);
        else await store.releaseLease(lease.jobId, lease).catch(() => undefined);
      }
      // Fewer than asked: nothing else is claimable now, so the next thing to happen may be a timer.
      if (leases.length < free && this.#state === "running") await this.#look(true);
    } while (this.#again);
  }

  /**
   * Asks the store when a job is next claimable and arms the timer for it; true when one is claimable now.
   * Right after a claim (`afterClaim`), "now" is a job that became due since, or one another worker holds for
   * an instant: the timer then looks again shortly rather than in a tight loop. The timer is only ever moved
   * earlier: a step that ended while the store was asked may have armed it for a time the answer missed, and a
   * timer that fires for nothing costs one look.
   */
  async #look(afterClaim = false): Promise<boolean> {
    const next = await this.#host.store.nextClaim({ roles: this.#schedule.roles });
    this.#leased = next.leased;
    this.#lookedAt = Date.now();
    if (this.#state !== "running") return false;
    if (next.inMs === 0 && !afterClaim) return true;
    if (next.inMs !== null) this.#timer.consider(Date.now() + Math.max(next.inMs, 5));
    return false;
  }

  async #adopt(leases: readonly Lease[]): Promise<void> {
    for (const lease of leases) {
      if (this.#state === "running" && this.#slots.size < this.#schedule.maxConcurrency && !this.#slots.has(lease.jobId)) this.#run(lease);
      else await this.#host.store.releaseLease(lease.jobId, lease).catch(() => undefined);
    }
  }

  #run(lease: Lease): void {
    const abort = new AbortController();
    this.#counters.running++;
    const done = this.#steps(lease, abort.signal).finally(() => {
      this.#counters.running--;
      this.#slots.delete(lease.jobId);
      void this.#kick("claim");
      this.#host.companion?.slotFreed();
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
      this.#counters.stepEnded(outcome.previous, outcome.status, outcome.role);
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
