/**
 * @module
 * The `ts_cli` system tool of the `DIRECT` chat style, as the model is offered it: the model runs TypeScript in
 * the job's workspace by calling it formally with one parameter, `code`. The step runs such calls itself
 * (`jobs/step/ts-cli.ts`); the tool's own `run` is never called.
 */
import { z } from "zod";
import { tool } from "../../tools/tool.ts";

/** The name of the system tool. */
export const TS_CLI = "ts_cli";

/**
 * The `ts_cli` tool as the model is offered it. Its calls never reach `run`: the job runner executes them in
 * the workspace (`jobs/step/ts-cli.ts`).
 */
export const tsCliTool = tool({
  name: TS_CLI,
  system: true,
  target: "DIRECT",
  description:
    "Run TypeScript in your persistent workspace and get its console output back. Top-level declarations " +
    "persist between calls; the value of a top-level expression is printed; call exit(result) when the task is done.",
  params: z.object({ code: z.string().describe("TypeScript to run (no Markdown fences).") }),
  run: () => {
    throw new Error("ts_cli runs in the job's workspace; it is executed by the job runner, not called");
  },
});
