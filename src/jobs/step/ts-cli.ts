/**
 * @module
 * The `ts_cli` system tool of the `DIRECT` chat style: the model runs TypeScript in the job's workspace by
 * calling it formally with one parameter, `code`. The cell runs like any other (variables persist, tools are
 * in scope), but its console output is the call's result, sent back as the tool result — it is not written
 * to the job's console.
 */
import { z } from "zod";
import { llmRepr } from "../../tools/llm-repr.ts";
import { tool } from "../../tools/tool.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { stripOuterFence } from "../chat-styles/fences.ts";
import type { RecordedToolCall } from "../history/history.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import type { DurableCellContext } from "./durable-cell.ts";
import { runDurableCell, settleCell } from "./durable-cell.ts";

/** The name of the system tool. */
export const TS_CLI = "ts_cli";

/**
 * The `ts_cli` tool as the model is offered it. Its calls never reach `run`: the job runner executes them in
 * the workspace (see {@link runTsCli}).
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

/**
 * Runs one `ts_cli` call as a durable cell (part `ts:<call id>` of the response's journal); returns the
 * encoded exit status when the code called `exit`, and whether it suspended (waiting for durable futures).
 */
export async function runTsCli(
  context: DurableCellContext, workspace: Workspace, call: RecordedToolCall, journal: ReadonlyMap<string, JournalItem[]>,
): Promise<{ exitStatus?: string; failed: boolean; suspended?: boolean }> {
  const started = performance.now();
  const code = typeof call.args.code === "string" ? stripOuterFence(call.args.code) : "";
  const part = `ts:${call.id}`;
  const { report, futures } = await runDurableCell(context, workspace, code, part, journal);
  const { changes } = context;
  // Tool calls the code made and its variables are the job's; its console output is the call's result.
  changes.absorb({ ...report, console: [] });
  if (report.suspended) {
    await settleCell(context, report, futures, part, journal);
    return { failed: false, suspended: true };
  }
  const output = report.console.map((entry) => entry.text).join("\n");
  changes.append("tool-call", {
    name: TS_CLI,
    origin: "formal",
    callId: call.id,
    args: llmRepr({ code }, { maxDepth: 2, maxItems: 10 }),
    ...(report.error !== undefined ? { error: output } : { result: output }),
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  });
  return { ...(report.exitStatus !== undefined ? { exitStatus: report.exitStatus } : {}), failed: report.error !== undefined };
}
