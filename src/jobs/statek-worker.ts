/**
 * @module
 * `statek.worker(options)`: the job runner's side of a worker. It checks the options,
 * registers the worker's agents, and hands the scheduler (`worker/job-worker.ts`) a function that steps one
 * claimed job under its lease (`runClaimedStep`), keeping the lease of a job that stays runnable for its next
 * step (a `LeaseCarry` per job) and releasing it when the scheduler will not step the job again.
 */
import type { FutureSignals } from "../durable/future-signals.ts";
import type { Lease, NewJobRows, Store } from "../store/store.ts";
import { kindOf } from "../tools/with-article.ts";
import { JobWorker, type WorkerActivity } from "../worker/job-worker.ts";
import type { WorkerStats } from "../worker/worker-stats.ts";
import { Agent } from "../agents/agent.ts";
import { releaseCarriedLease, runClaimedStep, type LeaseCarry } from "./step/run-step.ts";
import { AgentFeeder } from "./loops/agent-feeder.ts";
import { checkLoops, type AgentLoop } from "./loops/agent-loop.ts";
import { FutureChecks } from "../durable/future-checks.ts";
import type { StepEnvironment } from "./step/step-environment.ts";

export type { AgentLoop, WorkerActivity, WorkerStats };
export type { AgentWorkerStats } from "../worker/worker-stats.ts";

/** Default of {@link WorkerOptions.maxConcurrency}. */
export const DEFAULT_MAX_CONCURRENCY = 10;
/** Default of {@link WorkerStopOptions.graceMs}. */
export const DEFAULT_GRACE_MS = 10_000;
/** Default of {@link WorkerOptions.eventRetentionMs}: a week. */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 24 * 3_600_000;

/** What {@link Statek.worker} accepts. */
export interface WorkerOptions {
  /**
   * Steps running at once at most. A step mostly waits (for the model, for tools, for the store's fsync), so this
   * can be far above the number of cores; see docs/worker.md for sizing it. @default 10
   */
  maxConcurrency?: number;
  /**
   * How long the worker's lease on a job it steps lasts unless renewed (renewed at a quarter of it). If the
   * worker dies, its jobs wait this long before another worker takes them over. @default Statek.open's leaseMs (30 s)
   */
  leaseMs?: number;
  /** Agents whose jobs this worker runs (registered with this Statek too). @default every agent registered when start() is called */
  agents?: readonly Agent[];
  /**
   * Events of the outbox (`statek.events()`, the UI's live feed, other processes' wake-ups) older than this are
   * deleted while the worker runs, every few minutes; 0 keeps them forever. Job histories are not touched.
   * @default 7 days
   */
  eventRetentionMs?: number;
  /** Hears each step's end and each error (logs, status lines); must not throw. */
  onActivity?: (activity: WorkerActivity) => void;
  /**
   * Agentic loops: for each, whenever slots are free the worker creates `min(free slots, queueSize() − the
   * agent's READY and WARMING_UP jobs)` new jobs of its agent (none while its breaker is open). Several loops make
   * a fleet; several workers on one store never overshoot. Their agents are this worker's agents too.
   *
   * @example
   * ```ts
   * statek.worker({ maxConcurrency: 50, loops: [{ agent: triage, queueSize: async () => inbox.count() }] });
   * ```
   */
  loops?: readonly AgentLoop[];
}

/** What {@link StatekWorker.stop} accepts. */
export interface WorkerStopOptions {
  /**
   * How long steps in flight may run on before they are aborted; an aborted step commits nothing and releases
   * its lease, so its job is replayed by the next worker. @default 10_000
   */
  graceMs?: number;
}

/** A worker of a Statek: runs jobs as a service until stopped. */
export interface StatekWorker {
  /** Starts claiming runnable jobs; resolves once the worker is claiming. */
  start(): Promise<void>;
  /** Stops claiming, lets running steps finish within `graceMs`, aborts the rest; resolves once stopped. */
  stop(options?: WorkerStopOptions): Promise<void>;
  /** What the worker has done so far. */
  readonly stats: WorkerStats;
}

/** What a worker needs from its Statek. */
export interface WorkerContext {
  store: Store;
  owner: string;
  signals: FutureSignals;
  leaseMs: number;
  register(agent: Agent, call: string): void;
  /** Roles of every agent registered now. */
  roles(): string[];
  environment(signal: AbortSignal): StepEnvironment;
  /** Called when the worker starts and once it has stopped (Statek.close stops its workers). */
  track(worker: StatekWorker, running: boolean): void;
  /** The agent registered under `role`. */
  agentFor(role: string): Agent;
  /** The rows of a new job of `agent` made by a loop or from an event (bound to `event.name`). */
  agentJobRows(agent: Agent, id: string, event?: { name: string; blob: string; type: string }): NewJobRows;
}

/** Checks the options and makes the worker (it does nothing until started). */
export function createWorker(context: WorkerContext, options: WorkerOptions = {}): StatekWorker {
  if (typeof options !== "object" || options === null) throw new TypeError(`worker: expected options such as { maxConcurrency: 10 }, got ${kindOf(options)}`);
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  checkInteger("maxConcurrency", maxConcurrency, 1);
  const leaseMs = options.leaseMs ?? context.leaseMs;
  checkInteger("leaseMs", leaseMs, 100);
  if ("pollIntervalMs" in options) {
    throw new TypeError("worker: pollIntervalMs is not a worker option: the store's wake-up subscription says when another process committed " +
      "(SQLite: createSqliteStore({ path, pollIntervalMs }), 25 ms by default; PostgreSQL: LISTEN/NOTIFY, with createPostgresStore({ pollIntervalMs }) as its safety poll)");
  }
  const eventRetentionMs = options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  checkInteger("eventRetentionMs", eventRetentionMs, 0);
  if (options.onActivity !== undefined && typeof options.onActivity !== "function") throw new TypeError("worker: onActivity must be a function");
  if (options.agents !== undefined && !Array.isArray(options.agents)) throw new TypeError(`worker: agents must be an array of Agents, got ${kindOf(options.agents)}`);
  const agents = options.agents ?? [];
  agents.forEach((agent: unknown, index) => {
    if (!(agent instanceof Agent)) throw new TypeError(`worker: agents[${index}] is not an Agent (got ${kindOf(agent)})`);
  });
  const loops = checkLoops(options.loops);
  for (const agent of [...agents, ...loops.map((loop) => loop.agent)]) context.register(agent, "worker");

  let scheduler: JobWorker | undefined;
  let checks: FutureChecks | undefined;
  const report = (activity: WorkerActivity) => {
    try {
      options.onActivity?.(activity);
    } catch {
      // A listener that throws must not stop the worker.
    }
  };
  const worker: StatekWorker = {
    async start() {
      const roles = options.agents ? [...new Set([...agents, ...loops.map((loop) => loop.agent)].map((agent) => agent.role))] : context.roles();
      if (roles.length === 0) throw new TypeError("worker.start: no agents to run (pass statek.worker({ agents }) or register agents with Statek.open({ agents }))");
      if (scheduler) throw new Error("worker.start: this worker was started already; create another with statek.worker()");
      // The leases kept between two steps of a job that stays runnable, by job id.
      const carried = new Map<string, LeaseCarry>();
      scheduler = new JobWorker(
        {
          store: context.store,
          owner: context.owner,
          signals: context.signals,
          runStep: async (lease: Lease, signal: AbortSignal) => {
            const carry = carried.get(lease.jobId) ?? {};
            carried.delete(lease.jobId);
            // The lease is renewed at the rate it was claimed: this worker's leaseMs, whatever Statek.open's is.
            const environment: StepEnvironment = {
              ...context.environment(signal), leaseMs,
              onLeaseLate: (late) => report({ kind: "lease-late", ...late }),
            };
            const outcome = await runClaimedStep(environment, lease, carry);
            if (carry.tx) carried.set(lease.jobId, carry);
            return { ...outcome, leaseKept: carry.tx !== undefined };
          },
          releaseKept: async (lease: Lease) => {
            const carry = carried.get(lease.jobId);
            carried.delete(lease.jobId);
            if (carry) await releaseCarriedLease(carry);
          },
          companion: new AgentFeeder({
            store: context.store, roles, loops, report,
            agentFor: (role) => context.agentFor(role),
            rowsFor: (agent, id, event) => context.agentJobRows(agent, id, event),
          }),
        },
        {
          roles, maxConcurrency, leaseMs, eventRetentionMs,
          // While jobs are leased, dead holders of this machine are found within a quarter of a lease (at most a second).
          safetyIntervalMs: Math.max(50, Math.min(1_000, Math.floor(leaseMs / 4))),
          ...(options.onActivity ? { onActivity: options.onActivity } : {}),
        },
      );
      // Checked futures of this worker's agents' jobs: one timer for all of them.
      const lookups = context.environment(new AbortController().signal);
      checks = new FutureChecks({
        store: context.store,
        signals: context.signals,
        toolOf: (role, name) => {
          if (!roles.includes(role)) return undefined;
          try {
            return lookups.agentFor(role).registry.get(name);
          } catch {
            return undefined;
          }
        },
        onError: (key, jobId, error) => report({ kind: "check-error", key, jobId, error }),
      });
      context.track(worker, true);
      try {
        await scheduler.start();
        checks.start();
      } catch (error) {
        context.track(worker, false);
        throw error;
      }
    },
    async stop(stopOptions: WorkerStopOptions = {}) {
      const graceMs = stopOptions.graceMs ?? DEFAULT_GRACE_MS;
      if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new TypeError(`worker.stop: graceMs must be a number of milliseconds ≥ 0, got ${String(graceMs)}`);
      if (!scheduler) return;
      await checks?.stop();
      await scheduler.stop(graceMs);
      context.track(worker, false);
    },
    get stats() {
      return scheduler?.stats ?? { running: 0, suspended: 0, done: 0, failed: 0, cancelled: 0, steps: 0, stepErrors: 0, stepsPerSecond: 0, agents: {} };
    },
  };
  return worker;
}

function checkInteger(name: string, value: unknown, minimum: number): void {
  if (!(Number.isInteger(value) && (value as number) >= minimum)) {
    throw new TypeError(`worker: ${name} must be an integer of at least ${minimum}, got ${typeof value === "number" ? String(value) : kindOf(value)}`);
  }
}
