/**
 * @module
 * The tools one job has: its agent's registry, plus what belongs to the job itself — `createTool` (hidden: for
 * the application's hidden warmup code) and the tools made with it, rebuilt from the specs kept in the job's
 * state, so every process that steps the job has them.
 */
import { boundTool, createToolTool } from "../tools/created-tool.ts";
import { decodeCreatedTool } from "../tools/job-request.ts";
import type { Tool } from "../tools/tool.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";

/** A job's tools. */
export interface JobTools {
  /** Every tool the job's workspace has (hidden ones included). */
  all: Tool[];
  /** The tools the job made at run time, in the order made (listed in its prompt). */
  created: Tool[];
}

/** The tools of a job of an agent with `registry`, whose state is `state`. */
export function jobTools(registry: ToolRegistry, state: Readonly<Record<string, unknown>>): JobTools {
  const all = [...registry.all];
  if (!registry.get(createToolTool.name)) all.push(createToolTool);
  const created: Tool[] = [];
  const specs = Array.isArray(state.createdTools) ? state.createdTools : [];
  for (const entry of specs) {
    const spec = decodeCreatedTool(entry);
    const base = spec && all.find((tool) => tool.name === spec.base);
    // A spec whose tool the agent no longer has (or whose name it now uses) is left out.
    if (!spec || !base || all.some((tool) => tool.name === spec.name)) continue;
    const made = boundTool(spec, base);
    created.push(made);
    all.push(made);
  }
  return { all, created };
}

/**
 * The names of the tools a job's code may call: the job's own set (`submitJob({ allowedTools })`, kept in its
 * state), else its agent's (`agentAllowed`), with each tool the job made whose base tool is allowed;
 * `undefined` when every tool that is not hidden is.
 */
export function jobAllowedTools(agentAllowed: readonly string[] | undefined, state: Readonly<Record<string, unknown>>, created: readonly Tool[]): readonly string[] | undefined {
  const own = state.allowedTools;
  const allowed = Array.isArray(own) ? own.filter((name): name is string => typeof name === "string") : agentAllowed;
  if (!allowed) return undefined;
  const specs = (Array.isArray(state.createdTools) ? state.createdTools : []).map(decodeCreatedTool);
  const bases = new Map(specs.flatMap((spec) => (spec ? [[spec.name, spec.base] as const] : [])));
  return [...allowed, ...created.filter((tool) => allowed.includes(bases.get(tool.name) ?? "")).map((tool) => tool.name)];
}
