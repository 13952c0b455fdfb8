/**
 * @module
 * What `statek.agentHealth(role)` tells: an agent's circuit breaker and its queued events, from the store.
 */
import type { AgentRow } from "../../store/store.ts";

/** An agent's health. */
export interface AgentHealth {
  role: string;
  /** `closed`: loops and events create its jobs; `open`: they create none until `statek.resetAgent(role)`. */
  state: "closed" | "open";
  /** Why the breaker opened (while open). */
  reason?: string;
  /** When it opened (epoch milliseconds, while open). */
  openedAt?: number;
  /** Its jobs that ended `FAILED` in a row since one ended `DONE` (or it was reset). */
  failures: number;
  /** Events queued for it, not yet made into jobs. */
  queuedEvents: number;
  /** The queue size its loop last read (in any worker), if a loop ran. */
  loopSize?: number;
}

/** The health of a stored agent row. */
export function toAgentHealth(row: AgentRow): AgentHealth {
  return {
    role: row.role,
    state: row.breaker,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.openedAt === null ? {} : { openedAt: row.openedAt }),
    failures: row.failures,
    queuedEvents: row.queuedEvents,
    ...(row.loopSize === null ? {} : { loopSize: row.loopSize }),
  };
}
