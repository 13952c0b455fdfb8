/**
 * @module
 * The worker's companion that makes jobs for agents that run themselves (`statek.worker({ loops })` and
 * `statek.pushAgentEvent`): whenever the worker has free slots it takes its agents' queued events — one job per
 * event, oldest first — and asks each loop's `queueSize`, then asks the store to create
 * `min(free slots, queueSize − pending)` jobs; the store counts and creates under the agent's lock, so workers
 * sharing a store never overshoot, and refuses while the agent's breaker is open. The jobs are created leased to
 * this worker, which steps them at once: no claim of their own.
 *
 * A pass runs when the worker starts, when a step ends (a slot freed: events and loops), on the store's wake-up
 * hints (an event may have been pushed, here or by another process: events only), and every loop's `everyMs`
 * (the application's queue may grow without any write to the store). Passes never overlap; what asks for one
 * while one runs gets one more after it. Nothing here is fatal: a failing `queueSize` or an agent whose events
 * cannot be bound is reported, and the worker goes on.
 */
import { randomUUID } from "node:crypto";
import type { Agent } from "../../agents/agent.ts";
import type { AgentEventRow, NewJobRows, Store } from "../../store/store.ts";
import type { WorkerActivity, WorkerCompanion, WorkerControl } from "../../worker/job-worker.ts";
import type { AgentFeedStats } from "../../worker/worker-stats.ts";
import { errorMessage } from "../../errors/error-text.ts";
import { decodeAgentEvent } from "./agent-event-codec.ts";
import type { CheckedLoop } from "./agent-loop.ts";
import { eventVariableOf } from "./event-variable.ts";

/** What the feeder needs from its worker and Statek. */
export interface FeederHost {
  store: Store;
  /** Roles whose events this worker takes (the agents it runs). */
  roles: readonly string[];
  loops: readonly CheckedLoop[];
  agentFor(role: string): Agent;
  /** The rows of a new job of `agent`, with `event` bound when given. */
  rowsFor(agent: Agent, id: string, event?: { name: string; blob: string; type: string }): NewJobRows;
  report(activity: WorkerActivity): void;
}

/** What asked for a pass: loops are asked only when a slot freed, at start, or on their timer. */
interface PassRequest {
  loops: "all" | "due" | "none";
}

/** Makes the jobs of a worker's agentic loops and agent events. */
export class AgentFeeder implements WorkerCompanion {
  readonly #host: FeederHost;
  readonly #counts = new Map<string, AgentFeedStats>();
  /** When each loop's `queueSize` was last asked, by role. */
  readonly #askedAt = new Map<string, number>();
  /** The last problem reported per role, so one that persists is reported once. */
  readonly #reported = new Map<string, string>();
  #control: WorkerControl | undefined;
  #running: Promise<void> | undefined;
  #next: PassRequest | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopHints: (() => void) | undefined;
  #stopped = false;

  constructor(host: FeederHost) {
    this.#host = host;
    for (const loop of host.loops) this.#counts.set(loop.agent.role, { fromLoop: 0, fromEvents: 0, loopSize: null, loopErrors: 0 });
  }

  start(control: WorkerControl): void {
    this.#control = control;
    this.#stopHints = this.#host.store.subscribeWakeups(() => this.#request({ loops: "none" }));
    const every = Math.min(...this.#host.loops.map((loop) => loop.everyMs));
    if (Number.isFinite(every)) this.#timer = setInterval(() => this.#request({ loops: "due" }), every);
    this.#request({ loops: "all" });
  }

  slotFreed(): void {
    this.#request({ loops: "all" });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#stopHints?.();
    this.#next = undefined;
    await this.#running;
  }

  stats(): Record<string, AgentFeedStats> {
    return Object.fromEntries([...this.#counts].map(([role, counts]) => [role, { ...counts }]));
  }

  #request(request: PassRequest): void {
    if (this.#stopped || !this.#control) return;
    const order = { none: 0, due: 1, all: 2 } as const;
    if (this.#next === undefined || order[request.loops] > order[this.#next.loops]) this.#next = request;
    this.#running ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#next !== undefined && !this.#stopped) {
        const request = this.#next;
        this.#next = undefined;
        try {
          await this.#pass(request);
        } catch (error) {
          this.#host.report({ kind: "worker-error", error });
        }
      }
    } finally {
      this.#running = undefined;
    }
  }

  #countsOf(role: string): AgentFeedStats {
    let counts = this.#counts.get(role);
    if (!counts) this.#counts.set(role, (counts = { fromLoop: 0, fromEvents: 0, loopSize: null, loopErrors: 0 }));
    return counts;
  }

  async #pass(request: PassRequest): Promise<void> {
    let free = this.#control!.freeSlots();
    if (free <= 0) return;
    for (const role of await this.#rolesWithEvents()) {
      if (free <= 0 || this.#stopped) break;
      const jobIds = await this.#takeEvents(role, free);
      free -= jobIds.length;
    }
    const now = Date.now();
    const loops = this.#host.loops.filter((loop) => request.loops === "all" ||
      (request.loops === "due" && now - (this.#askedAt.get(loop.agent.role) ?? 0) >= loop.everyMs));
    if (loops.length && free > 0 && !this.#stopped) {
      const sizes = await Promise.all(loops.map((loop) => this.#queueSize(loop)));
      for (const [index, loop] of loops.entries()) {
        const size = sizes[index];
        if (size === undefined || free <= 0 || this.#stopped) continue;
        const role = loop.agent.role;
        const result = await this.#host.store.createAgentJobs({
          role, limit: free, source: { kind: "loop", queueSize: size }, build: () => this.#host.rowsFor(loop.agent, randomUUID()),
          claimFor: this.#control!.claimAs,
        });
        await this.#control!.adopt(result.leases ?? []);
        this.#countsOf(role).fromLoop += result.jobIds.length;
        if (result.jobIds.length) this.#host.report({ kind: "agent-jobs", role, source: "loop", jobIds: result.jobIds });
        free -= result.jobIds.length;
      }
    }
  }

  /** This worker's roles with queued events and a closed breaker, oldest role name first. */
  async #rolesWithEvents(): Promise<string[]> {
    if (this.#host.roles.length === 0) return [];
    const agents = await this.#host.store.agents(this.#host.roles);
    return agents.filter((agent) => agent.queuedEvents > 0 && agent.breaker === "closed").map((agent) => agent.role);
  }

  /** Makes up to `limit` jobs of `role` from its events; none (reported) when they cannot be bound. */
  async #takeEvents(role: string, limit: number): Promise<string[]> {
    let agent: Agent;
    let name: string;
    try {
      agent = this.#host.agentFor(role);
      name = eventVariableOf(agent);
    } catch (error) {
      this.#reportOnce(role, error, (problem) => ({ kind: "agent-error", role, error: problem }));
      return [];
    }
    let result;
    try {
      result = await this.#host.store.createAgentJobs({
        role, limit, source: { kind: "events" }, claimFor: this.#control!.claimAs,
        build: (event: AgentEventRow | undefined) => {
          const queued = decodeAgentEvent(event!.blob, { role, id: event!.id });
          return this.#host.rowsFor(agent, randomUUID(), { name, ...queued });
        },
      });
    } catch (error) {
      // A damaged event fails the whole request (nothing is taken): reported, and the events stay queued.
      this.#reportOnce(role, error, (problem) => ({ kind: "agent-error", role, error: problem }));
      return [];
    }
    await this.#control!.adopt(result.leases ?? []);
    this.#reported.delete(role);
    this.#countsOf(role).fromEvents += result.jobIds.length;
    if (result.jobIds.length) this.#host.report({ kind: "agent-jobs", role, source: "events", jobIds: result.jobIds });
    return result.jobIds;
  }

  /** The loop's queue size now, or `undefined` (reported) when asking failed, timed out or gave no number. */
  async #queueSize(loop: CheckedLoop): Promise<number | undefined> {
    const role = loop.agent.role;
    this.#askedAt.set(role, Date.now());
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer: unknown = await Promise.race([
        Promise.resolve().then(() => loop.queueSize()),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`queueSize of agent '${role}' did not answer within ${loop.timeoutMs} ms`)), loop.timeoutMs);
        }),
      ]);
      if (typeof answer !== "number" || Number.isNaN(answer)) throw new TypeError(`queueSize of agent '${role}' returned ${typeof answer === "number" ? "NaN" : typeof answer}, not a number`);
      const size = answer === Infinity ? Number.MAX_SAFE_INTEGER : Math.max(-Number.MAX_SAFE_INTEGER, Math.floor(answer));
      this.#countsOf(role).loopSize = size;
      return size;
    } catch (error) {
      this.#countsOf(role).loopErrors++;
      this.#host.report({ kind: "loop-error", role, error });
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  #reportOnce(role: string, error: unknown, activity: (error: unknown) => WorkerActivity): void {
    const message = errorMessage(error);
    if (this.#reported.get(role) === message) return;
    this.#reported.set(role, message);
    this.#host.report(activity(error));
  }
}
