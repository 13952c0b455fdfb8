/**
 * @module
 * Checks of `Statek.open`'s options that need more than a line: the agents given, the workspace limits, and the
 * instance's own registries.
 */
import type { WorkspaceLimits } from "../workspace/limits.ts";
import { kindOf } from "../tools/with-article.ts";
import { Agent } from "../agents/agent.ts";
import type { StatekOptions } from "./statek.ts";
import { DEFAULT_REGISTRIES, Registries } from "../registries/registries.ts";
import { enumMembersFor } from "../tools/enum-members.ts";
import { checkClassDocs } from "../docs/class-docs.ts";

/** The workspace limits of `Statek.open`; `limits`, which names them on no option, is refused by name. */
export function workspaceLimitsOf(options: StatekOptions): Partial<WorkspaceLimits> | undefined {
  if ((options as { limits?: unknown }).limits !== undefined) {
    throw new TypeError("Statek.open: limits is not an option; workspace limits (cellTimeMs, memoryBytes, …) are workspaceLimits, harness limits (maxTurns, …) are harness");
  }
  return options.workspaceLimits;
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

/** The registries of one instance: its own enums, formatters, class docs and tracer over the process-wide ones. */
export function registriesOf(options: StatekOptions): Registries {
  const registries = new Registries({ parent: DEFAULT_REGISTRIES, ...(options.tracer ? { tracer: options.tracer } : {}) });
  for (const entry of options.enums ?? []) {
    const [cls, members] = typeof entry === "function" ? [entry, undefined] : entry;
    registries.setEnum(cls, enumMembersFor(cls, members, "Statek.open: enums"));
  }
  for (const [cls, formatter] of options.formatters ?? []) {
    if (typeof cls !== "function" || typeof formatter !== "function") throw new TypeError("Statek.open: formatters must be [class, function] pairs");
    registries.setFormatter(cls, formatter);
  }
  for (const [target, docs] of options.classDocs ?? []) {
    checkClassDocs(target, docs, "Statek.open: classDocs");
    registries.setDocs(target, docs);
  }
  return registries;
}
