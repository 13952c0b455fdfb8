/**
 * @module
 * Executing a committed model response: its formal tool calls, then its cell, in the job's workspace.
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import type { JobRow } from "../store/store.ts";
import { compileCell } from "../workspace/cell-compiler.ts";
import { Workspace } from "../workspace/workspace.ts";
import type { Agent } from "./agent.ts";
import type { ModelResponseRecord } from "./history.ts";
import type { JobSession } from "./job-sessions.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";

/** Executes a committed response; returns the encoded exit status when the code called `exit`. */
export async function executeResponse(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, response: ModelResponseRecord, changes: StepChanges,
): Promise<string | undefined> {
  session.workspace ??= await openWorkspace(env, agent, row);
  const workspace = session.workspace;
  let exitStatus: string | undefined;
  for (const call of response.toolCalls) {
    const report = await workspace.callFormal(call.name, call.args, call.id);
    changes.absorb(report);
  }
  // A reply of only formal tool calls has no cell; any other reply runs, so an empty one reads as such.
  const code = response.code ?? "";
  const skipCell = response.toolCalls.length > 0 && compileCell(code).kind === "empty";
  if (!skipCell) {
    const report = await workspace.runCell(code);
    changes.absorb(report);
    exitStatus = report.exitStatus;
  }
  return exitStatus;
}

/**
 * Opens the job's workspace with its variables restored. `allowHidden` lets its code call hidden tools (warmup
 * code marked hidden); such a workspace must not be kept for model-written code.
 */
export async function openWorkspace(env: StepEnvironment, agent: Agent, row: JobRow, options: { allowHidden?: boolean } = {}): Promise<Workspace> {
  const bindings = new Map(env.bindings);
  for (const [name, value] of Object.entries(agent.context)) bindings.set(name, value);
  try {
    return await Workspace.open(
      {
        executor: env.executor,
        limits: env.limits,
        job: { id: row.id, role: row.role },
        // The broker checks every call against these; hidden tools stay out of model-written code.
        tools: agent.tools,
        ...allowedToolsOf(agent, row),
        ...(options.allowHidden ? { allowHidden: true } : {}),
        globals: agent.context,
        bindings,
        exposed: env.exposed,
        ...(env.signal ? { signal: env.signal } : {}),
      },
      await env.store.getVariables(row.id),
    );
  } catch (error) {
    throw new CorruptRecordError({ jobId: row.id, location: "workspace variables", cause: error });
  }
}

/** The job's allowed tool set: its own (`submitJob({ allowedTools })`), else its agent's. */
function allowedToolsOf(agent: Agent, row: JobRow): { allowedTools?: readonly string[] } {
  const own = row.state.allowedTools;
  if (Array.isArray(own)) return { allowedTools: own.filter((name): name is string => typeof name === "string") };
  return agent.allowedTools ? { allowedTools: agent.allowedTools } : {};
}
