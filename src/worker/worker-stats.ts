/**
 * @module
 * What a worker has done, for status lines and logs: steps in flight, steps ended by outcome, and the step
 * rate over the last few seconds. Counters only: nothing here grows with the number of jobs.
 */

/** A snapshot of a worker's counters. */
export interface WorkerStats {
  /** Steps running now. */
  running: number;
  /**
   * Jobs this worker suspended and has not stepped again since (a job suspended by another process and resumed
   * here counts −1, so the figure is this worker's own balance, not the store's count).
   */
  suspended: number;
  /** Steps that ended their job `DONE`. */
  done: number;
  /** Steps that ended their job `FAILED`. */
  failed: number;
  /** Steps that ended their job `CANCELLED` (it was cancelled while it ran). */
  cancelled: number;
  /** Steps committed in all. */
  steps: number;
  /** Steps that failed without committing (a store outage, a lost lease, a stop); their jobs are stepped again. */
  stepErrors: number;
  /** Steps per second over the last {@link RATE_WINDOW_MS} (fewer while the worker is younger). */
  stepsPerSecond: number;
  /** The same, per agent role this worker has stepped or made jobs for. */
  agents: Record<string, AgentWorkerStats>;
}

/** What a worker has done for one agent. */
export interface AgentWorkerStats {
  /** Steps of the agent's jobs committed. */
  steps: number;
  /** Steps that ended one of its jobs `DONE`, and `FAILED`. */
  done: number;
  failed: number;
  /** Jobs its agentic loop created here, and jobs made here from its events. */
  fromLoop: number;
  fromEvents: number;
  /** The queue size its loop read last here (`null`: no loop here, or none read yet). */
  loopSize: number | null;
  /** Times its loop's `queueSize` failed or timed out here. */
  loopErrors: number;
}

/** The loop and event counts of one agent (what a worker's companion adds to its stats). */
export type AgentFeedStats = Pick<AgentWorkerStats, "fromLoop" | "fromEvents" | "loopSize" | "loopErrors">;

/** An agent's stats before anything happened. */
export function emptyAgentStats(): AgentWorkerStats {
  return { steps: 0, done: 0, failed: 0, fromLoop: 0, fromEvents: 0, loopSize: null, loopErrors: 0 };
}

/** The window of the step rate. */
export const RATE_WINDOW_MS = 5_000;

/** Counters of one worker. */
export class WorkerCounters {
  running = 0;
  suspended = 0;
  done = 0;
  failed = 0;
  cancelled = 0;
  steps = 0;
  stepErrors = 0;
  readonly #now: () => number;
  /** Step counts per second slot of the window (a ring), and the second each slot holds. */
  readonly #slots = new Array<number>(RATE_WINDOW_MS / 1000).fill(0);
  readonly #slotSeconds = new Array<number>(RATE_WINDOW_MS / 1000).fill(-1);
  readonly #startedAt: number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#startedAt = now();
  }

  /** Per role: steps, done and failed. */
  readonly #agents = new Map<string, AgentWorkerStats>();

  /** Counts one committed step that took a job of `role` (when known) from `previous` to `status`. */
  stepEnded(previous: string, status: string, role?: string): void {
    this.steps++;
    if (role !== undefined) {
      let agent = this.#agents.get(role);
      if (!agent) this.#agents.set(role, (agent = emptyAgentStats()));
      agent.steps++;
      if (status === "DONE") agent.done++;
      else if (status === "FAILED") agent.failed++;
    }
    if (status === "SUSPENDED") this.suspended++;
    if (previous === "SUSPENDED") this.suspended--;
    if (status === "DONE") this.done++;
    else if (status === "FAILED") this.failed++;
    else if (status === "CANCELLED") this.cancelled++;
    const second = Math.floor(this.#now() / 1000);
    const slot = second % this.#slots.length;
    if (this.#slotSeconds[slot] !== second) {
      this.#slotSeconds[slot] = second;
      this.#slots[slot] = 0;
    }
    this.#slots[slot]!++;
  }

  /** The counters now, with the loop and event counts of `feed` per role. */
  snapshot(feed: Readonly<Record<string, AgentFeedStats>> = {}): WorkerStats {
    const agents: Record<string, AgentWorkerStats> = {};
    for (const [role, counts] of this.#agents) agents[role] = { ...counts };
    for (const [role, counts] of Object.entries(feed)) agents[role] = { ...(agents[role] ?? emptyAgentStats()), ...counts };
    const now = this.#now();
    const second = Math.floor(now / 1000);
    let recent = 0;
    this.#slotSeconds.forEach((slotSecond, slot) => {
      if (slotSecond > second - this.#slots.length) recent += this.#slots[slot]!;
    });
    const windowMs = Math.max(1, Math.min(RATE_WINDOW_MS, now - this.#startedAt));
    return {
      running: this.running, suspended: this.suspended, done: this.done, failed: this.failed, cancelled: this.cancelled,
      steps: this.steps, stepErrors: this.stepErrors, stepsPerSecond: (recent * 1000) / windowMs, agents,
    };
  }
}
