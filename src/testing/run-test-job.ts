/**
 * @module
 * `runTestJob`: one job of an agent, start to end, in a private in-memory store — the few lines every test of
 * an agent starts with. The agent usually has a {@link scriptedModel}, so the test can assert on the job's view
 * and on what the model was sent (`model.requests`).
 */
import { Statek, type StatekOptions, type SubmitJobOptions } from "../jobs/statek.ts";
import type { Agent } from "../agents/agent.ts";
import type { JobView } from "../jobs/history/job-view.ts";

/** What {@link runTestJob} takes besides the agent: the job's options, and how to open `Statek`. */
export interface RunTestJobOptions extends SubmitJobOptions {
  /** Options of the `Statek` the job runs in (no `agents`: the agent is registered). @default an in-memory store */
  statek?: Omit<StatekOptions, "agents">;
  /** Called once `Statek` is open, before the job is submitted: `statek.expose(…)`, other agents, … */
  setup?: (statek: Statek) => void | Promise<void>;
  /** Stop after this many steps even if the job has not finished. @default no limit */
  maxSteps?: number;
}

/**
 * Submits one job of `agent` to a fresh `Statek` (in memory unless `options.statek.store` says otherwise), runs
 * it until it is `DONE` or `FAILED`, closes everything and returns the job's view.
 *
 * @example
 * ```ts
 * import { Agent, tool } from "statek";
 * import { runTestJob, scriptedModel } from "statek/testing";
 *
 * const model = scriptedModel(["```ts\nexit(add(2, 3))\n```"]);
 * const view = await runTestJob(new Agent({ role: "adder", tools: [add], model }));
 * assert.equal(view.exitStatus, 5);
 * assert.match(model.requests[0].system, /add\(a: number, b: number\)/);
 * ```
 */
export async function runTestJob(agent: Agent, options: RunTestJobOptions = {}): Promise<JobView> {
  const { statek: statekOptions, setup, maxSteps, ...submit } = options;
  const statek = await Statek.open({ store: ":memory:", ...statekOptions, agents: [agent] });
  try {
    await setup?.(statek);
    const { id } = await statek.submitJob(agent, submit);
    return await statek.runJob(id, maxSteps === undefined ? {} : { maxSteps });
  } finally {
    await statek.close();
  }
}
