/**
 * @module
 * `answer(body, media?)`: the tool a dialog agent's model calls to give the user its final answer and end the
 * job in one go — the message is recorded and sent to the agent's `onMessage` once the step has committed, and
 * the job ends `DONE` with the answer as its exit value (what a parent awaiting it gets). Add it to an agent's
 * tools: `new Agent({ tools: [answerTool, …], chatStyle: "MD_DIALOG", onMessage })`.
 */
import { z } from "zod";
import { jobRequest } from "../tools/job-request.ts";
import { tool, type Tool } from "../tools/tool.ts";

/** The `answer` tool (see the module comment). */
export const answerTool: Tool = tool({
  name: "answer",
  description: "Send the user your final answer and end the job.",
  params: z.object({
    body: z.string().describe("The answer, as the user reads it."),
    media: z.string().optional().describe("A file the answer refers to, such as gen/chart.svg."),
  }),
  returns: "Nothing: the job ends with the answer.",
  system: true,
  run: ({ body, media }) => jobRequest(undefined, [
    { type: "message", body, ...(media === undefined || media === "" ? {} : { media }) },
    { type: "exit", status: body },
  ]),
});
