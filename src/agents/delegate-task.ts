/**
 * @module
 * `delegateTask(role, { message, vars })`: the system tool of an agent given `delegates`. Agent code hands
 * a piece of work to one of those agents as a sub-task (a child job) and gets its handle — `id`, a live
 * `state`, awaitable for the child's result. Only the roles listed may be delegated to: the list is the
 * agent's, never the model's.
 */
import { z } from "zod";
import { tool, type Tool, type ToolAgent } from "../tools/tool.ts";

const params = z.object({
  role: z.string().describe("The role of the agent to delegate to (one of those listed)."),
  options: z
    .object({
      message: z.string().optional().describe("What the sub-task should do, as its opening message."),
      vars: z.record(z.string(), z.unknown()).optional().describe("Variables the sub-task starts with, by name."),
    })
    .strict()
    .optional()
    .describe("The sub-task's opening message and starting variables."),
});

/** The `delegateTask` tool for an agent whose sub-tasks may run `delegates`. */
export function delegateTaskTool(delegates: readonly ToolAgent[]): Tool {
  const byRole = new Map(delegates.map((agent) => [agent.role, agent]));
  const roles = [...byRole.keys()].map((role) => JSON.stringify(role)).join(", ");
  return tool({
    name: "delegateTask",
    description:
      `Start a sub-task: a job of another agent (${roles}) that works on its own and ends with a result. ` +
      "Returns its handle at once: `handle.id`, `handle.state` (WAITING, STARTED, COMPLETED or ERROR, read live), and " +
      "`await handle` for its result (it throws ChildJobFailed if the sub-task fails). `findTask(id)` gives the handle again in a later step.",
    params,
    returns: "The sub-task's handle.",
    system: true,
    run: ({ role, options }, ctx) => {
      const agent = byRole.get(role);
      if (!agent) throw new TypeError(`delegateTask: '${role}' is not an agent this one delegates to (${roles})`);
      return ctx.startJob(agent, { ...(options?.message !== undefined ? { message: options.message } : {}), ...(options?.vars ? { vars: options.vars } : {}) });
    },
  });
}
