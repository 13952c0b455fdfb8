/**
 * @module
 * The variable an agent's events arrive in: its `eventVariable`, else the one name its warmup reads without
 * declaring it (and that neither its tools nor its context provide), else a
 * `NoEventVariableError` naming the role — raised before any of its events is taken.
 */
import type { Agent } from "../../agents/agent.ts";
import { NoEventVariableError } from "../../errors/no-event-variable-error.ts";
import { freeNames } from "../../workspace/free-names.ts";

/** The name `agent`'s events are bound to. @throws {NoEventVariableError} */
export function eventVariableOf(agent: Agent): string {
  if (agent.eventVariable !== undefined) return agent.eventVariable;
  const provided = new Set([...agent.registry.all.map((tool) => tool.name), ...Object.keys(agent.context)]);
  const names = new Set<string>();
  for (const block of agent.warmup) {
    let found: string[];
    try {
      found = freeNames(block.code);
    } catch {
      // A warmup that cannot be read names nothing; its job fails in warmup like any other.
      found = [];
    }
    for (const name of found) if (!provided.has(name)) names.add(name);
  }
  if (names.size !== 1) throw new NoEventVariableError({ role: agent.role, freeNames: [...names] });
  return [...names][0]!;
}
