/**
 * @module
 * What operators see of the agents (`statek agents`, the UI's agents page): per agent, its jobs by status, the
 * queue size its loop read last, its queued events and its circuit breaker — the registered agents and every
 * agent the store knows (a breaker row or queued events), by role.
 */
import type { JobStatus, Store } from "../../store/store.ts";
import { toAgentHealth, type AgentHealth } from "../loops/agent-health.ts";

/** One agent as operators see it. */
export interface AgentOverview extends AgentHealth {
  /** Its jobs by status (every status present, 0 when none). */
  jobs: Record<JobStatus, number>;
}

/** The agents of `roles` and every agent the store knows, by role. */
export async function agentsOverview(store: Store, roles: readonly string[]): Promise<AgentOverview[]> {
  const known = await store.agents();
  const all = [...new Set([...roles, ...known.map((agent) => agent.role)])].sort();
  const rows = await store.agents(all);
  return Promise.all(rows.map(async (row) => ({ ...toAgentHealth(row), jobs: await store.countJobs({ role: row.role }) })));
}
