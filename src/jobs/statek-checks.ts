/**
 * @module
 * Checks of `Statek.open`'s options that need more than a line: the agents given, and the workspace limits
 * under their name or their old one.
 */
import type { WorkspaceLimits } from "../workspace/limits.ts";
import { kindOf } from "../tools/with-article.ts";
import { Agent } from "../agents/agent.ts";
import type { StatekOptions } from "./statek.ts";

/** The workspace limits of `Statek.open`, by their name or their old one (not both). */
export function workspaceLimitsOf(options: StatekOptions): Partial<WorkspaceLimits> | undefined {
  if (options.workspaceLimits !== undefined && options.limits !== undefined) {
    throw new TypeError("Statek.open: give workspaceLimits or limits (the old name of workspaceLimits), not both");
  }
  return options.workspaceLimits ?? options.limits;
}

/** Checks `Statek.open({ agents })`: agents, and one agent per role. */
export function checkAgents(agents: unknown): void {
  if (agents === undefined) return;
  if (!Array.isArray(agents)) throw new TypeError(`Statek.open: agents must be an array of Agents, got ${kindOf(agents)}`);
  const byRole = new Map<string, number>();
  agents.forEach((agent: unknown, index) => {
    if (!(agent instanceof Agent)) throw new TypeError(`Statek.open: agents[${index}] is not an Agent (got ${kindOf(agent)})`);
    const first = byRole.get(agent.role);
    if (first === undefined) byRole.set(agent.role, index);
    else if (agents[first] !== agent) {
      throw new TypeError(`Statek.open: agents[${first}] and agents[${index}] are different Agents with the same role '${agent.role}'; give each agent its own role`);
    }
  });
}
