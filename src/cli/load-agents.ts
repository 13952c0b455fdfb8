/**
 * @module
 * The `--agents <module>` option: imports the application's module and finds its agents,
 * whether it exports them by name, as an `agents` array, or as its default export (an agent or an array).
 * Agents are code, so commands that serve or run them load the same module the application uses.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Agent } from "../agents/agent.ts";
import { formatError } from "../tools/call-tool.ts";
import { CliError } from "../errors/cli-error.ts";
import { syntaxErrorLocation } from "./syntax-error-location.ts";

/** The environment variable read for the agents module when `--agents` is not given. */
export const AGENTS_ENV = "STATEK_AGENTS";

/** The agents module a command uses: `--agents`, else `STATEK_AGENTS` (empty counts as not set). */
export function agentsModuleOf(given: string | boolean | string[] | undefined): string | undefined {
  if (typeof given === "string") return given;
  const fromEnv = process.env[AGENTS_ENV];
  return fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : undefined;
}

/**
 * The agents `path` exports, in export order without repeats. Fails (exit code 1) when the module cannot be
 * imported or exports no agent; `command` names the command in messages.
 */
export async function loadAgents(path: string, command: string): Promise<Agent[]> {
  if (!existsSync(resolve(path))) throw new CliError({ message: `${command}: no agents module at ${path}` });
  const url = pathToFileURL(resolve(path)).href;
  let exported: Record<string, unknown>;
  try {
    exported = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const at = syntaxErrorLocation(error, resolve(path));
    const where = at ? ` at ${path}:${at.line}:${at.column}\n  ${at.text}\n  ${" ".repeat(at.column - 1)}^` : "";
    throw new CliError({ message: `${command}: cannot load the agents module ${path}: ${formatError(error)}${where}`, cause: error });
  }
  const found: Agent[] = [];
  const foreign: string[] = [];
  const consider = (value: unknown, where: string) => {
    if (value instanceof Agent) {
      if (!found.includes(value)) found.push(value);
    } else if (looksLikeAgent(value)) {
      foreign.push(where);
    }
  };
  for (const [name, value] of Object.entries(exported)) {
    if (Array.isArray(value) && (name === "agents" || name === "default")) value.forEach((entry, index) => consider(entry, `${name}[${index}]`));
    else consider(value, name);
  }
  if (foreign.length && !found.length) {
    throw new CliError({
      message: `${command}: ${path} exports agents made by another copy of statek (${foreign.join(", ")}); import Agent from the statek this command runs`,
    });
  }
  if (!found.length) {
    throw new CliError({ message: `${command}: ${path} exports no Agent (export them by name, as an 'agents' array, or as the default export)` });
  }
  const roles = new Set<string>();
  for (const agent of found) {
    if (roles.has(agent.role)) throw new CliError({ message: `${command}: ${path} exports two different agents with the role '${agent.role}'` });
    roles.add(agent.role);
  }
  return found;
}

/** The agent of `role` among `agents`; a usage error lists the roles when there is none (or several and no role). */
export function pickAgent(agents: readonly Agent[], role: string | undefined, command: string): Agent {
  const roles = agents.map((agent) => agent.role).join(", ");
  if (role === undefined) {
    if (agents.length === 1) return agents[0]!;
    throw new CliError({ message: `--role is needed: the module has several agents (${roles})`, exitCode: 2, command });
  }
  const agent = agents.find((candidate) => candidate.role === role);
  if (!agent) throw new CliError({ message: `no agent with role '${role}' in the module (roles: ${roles})`, exitCode: 2, command });
  return agent;
}

function looksLikeAgent(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { role?: unknown }).role === "string" &&
    typeof (value as { systemPrompt?: unknown }).systemPrompt === "string" && Array.isArray((value as { tools?: unknown }).tools);
}
