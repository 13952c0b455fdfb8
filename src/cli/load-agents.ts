/**
 * @module
 * `--agents <module>` (DESIGN.md §11): imports the application's module and finds its agents, whether it exports
 * them by name, as an `agents` array, or as its default export (an agent or an array of agents).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Agent } from "../jobs/agent.ts";
import { formatError } from "../tools/call-tool.ts";
import { CliError } from "./cli-error.ts";

/** The agents of the module at `path` (relative to the working directory), at least one, one per role. */
export async function loadAgents(path: string, command: string): Promise<Agent[]> {
  const file = resolve(path);
  if (!existsSync(file)) throw new CliError({ message: `no agents module at ${path}` });
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError({ message: `cannot load the agents module ${path}: ${formatError(error)}`, cause: error });
  }
  const found: Agent[] = [];
  const add = (value: unknown) => {
    if (value instanceof Agent && !found.includes(value)) found.push(value);
  };
  for (const [name, value] of Object.entries(exports)) {
    if ((name === "agents" || name === "default") && Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  if (found.length === 0) {
    throw new CliError({
      message: `${path} exports no Agent (export them by name, as \`export const agents = [...]\`, or as the default export)`,
      exitCode: 2, command,
    });
  }
  const byRole = new Map<string, Agent>();
  for (const agent of found) {
    if (byRole.has(agent.role)) throw new CliError({ message: `${path} exports two different agents with the role '${agent.role}'` });
    byRole.set(agent.role, agent);
  }
  return found;
}
