/**
 * @module
 * The rows of agents that run themselves: each agent's durable FIFO of events, its circuit breaker, and the
 * request that turns events or an agentic loop's queue into jobs. Like the rest of the store they are plain
 * data: an event is stored as the text the job runner encoded it to (the workspace codec's), which becomes
 * the new job's variable as it is.
 */
import type { Lease } from "./durable-rows.ts";
import type { HistoryRow, JobRow, VariableRow } from "./store.ts";

/** The states of an agent's circuit breaker. */
export const BREAKER_STATES = ["closed", "open"] as const;

/** `closed`: loops and events create the agent's jobs; `open`: they create none until the agent is reset. */
export type BreakerState = (typeof BREAKER_STATES)[number];

/** An agent as the store knows it: its breaker and its queued events. */
export interface AgentRow {
  role: string;
  breaker: BreakerState;
  /** Why the breaker opened (the failure that opened it), `null` while closed. */
  reason: string | null;
  /** When it opened (epoch milliseconds, the store's clock), `null` while closed. */
  openedAt: number | null;
  /** Jobs of the agent that ended `FAILED` in a row since one ended `DONE` (or the agent was reset). */
  failures: number;
  /** The queue size an agentic loop last read for the agent (`null` until a loop ran), and when. */
  loopSize: number | null;
  loopAt: number | null;
  /** Events queued for the agent, not yet made into jobs. */
  queuedEvents: number;
}

/** One queued event of an agent. */
export interface AgentEventRow {
  /** Increasing in the order events were pushed (FIFO). */
  id: number;
  role: string;
  /** The event as the job runner encoded it (opaque to the store). */
  blob: string;
  /** When it was pushed (epoch milliseconds, the store's clock). */
  at: number;
}

/** The rows of one new job (what `insertJob` takes). */
export interface NewJobRows {
  job: JobRow;
  variables: VariableRow[];
  history: HistoryRow[];
}

/** Where {@link AgentJobsRequest} takes its jobs from. */
export type AgentJobSource =
  /** An agentic loop: up to `queueSize` minus the agent's `READY` and `WARMING_UP` jobs, counted in the same transaction. */
  | { kind: "loop"; queueSize: number }
  /** The agent's queued events, oldest first: one job per event, the event deleted in the same transaction. */
  | { kind: "events" };

/** What {@link Store.createAgentJobs} is asked to do. */
export interface AgentJobsRequest {
  role: string;
  /** At most this many jobs (a worker's free slots). */
  limit: number;
  source: AgentJobSource;
  /**
   * The rows of one new job of `role`: for an event (`events`), or for the next job of a loop (`event`
   * undefined). Called inside the store's transaction: it must only build rows (no I/O); a throw fails the
   * whole request, and nothing is taken or created.
   */
  build(event: AgentEventRow | undefined): NewJobRows;
  /**
   * Creates the jobs leased to this owner for `leaseMs` (epoch 1), as if it had claimed them in the same
   * transaction: a worker making jobs for its free slots steps them without a claim of its own.
   */
  claimFor?: { owner: string; leaseMs: number };
}

/** What {@link Store.createAgentJobs} did. */
export interface AgentJobsResult {
  /** The ids of the jobs created, in order (for events: in the events' order). */
  jobIds: string[];
  /** With `claimFor`: the new jobs' leases, in the same order. */
  leases?: Lease[];
  /** The agent's breaker as the request found it: `open` means nothing was created for that reason. */
  breaker: BreakerState;
}

/**
 * How a job's end counts for its agent's breaker, given with the commit that ends it (`JobCommit.agentOutcome`):
 * `DONE` resets the count of failures in a row; `FAILED` adds one, and the breaker opens when the count reaches
 * `threshold` or at once (`opensAtOnce`: a warmup failure).
 */
export type AgentOutcome =
  | { failed: false }
  | { failed: true; reason: string; threshold: number; opensAtOnce: boolean };
