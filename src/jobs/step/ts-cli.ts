/**
 * @module
 * Running a call of the `ts_cli` system tool of the `DIRECT` chat style (`agents/chat-styles/ts-cli-tool.ts`):
 * the code runs as a cell like any other (variables persist, tools are in scope), but its console output is
 * the call's result, sent back as the tool result — it is not written to the job's console.
 */
import { llmRepr } from "../../tools/llm-repr.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { stripOuterFence } from "../../agents/chat-styles/fences.ts";
import type { RecordedToolCall } from "../history/history.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import type { DurableCellContext } from "./durable-cell.ts";
import { committedCount, journalLength, runDurableCell, settleCell } from "./durable-cell.ts";
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import { TS_CLI } from "../../agents/chat-styles/ts-cli-tool.ts";

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
  const record: ToolCallRecord = {
    name: TS_CLI,
    origin: "formal",
    callId: call.id,
    args: llmRepr({ code }, { maxDepth: 2, maxItems: 10 }),
    ...(report.error !== undefined ? { error: output } : { result: output }),
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  };
  await recordOnce(context, record, `ts-result:${call.id}`, journal);
  return { ...(report.exitStatus !== undefined ? { exitStatus: report.exitStatus } : {}), failed: report.error !== undefined };
}

/**
 * The call's record, journaled with the response: when a later part of the response suspends, the call runs
 * again on resume (replaying its cell) and its record, committed with the suspension, is not written twice.
 */
async function recordOnce(context: DurableCellContext, record: ToolCallRecord, part: string, journal: ReadonlyMap<string, JournalItem[]>): Promise<void> {
  const { row, tx, changes } = context;
  const items = journal.get(part) ?? [];
  const done = items.find((item) => item.t === "done");
  if (done?.t === "done") {
    // Journaled by an earlier attempt: the history has it if that attempt's suspension committed it.
    if (committedCount(row.state, part) < items.length) for (const earlier of done.fx?.toolCalls ?? []) changes.append("tool-call", earlier as ToolCallRecord);
    return;
  }
  tx.journalFor(row.cell, journalLength(journal));
  tx.appendPart([{ t: "done", seq: 0, r: "", fx: { toolCalls: [record] } }], part);
  await tx.flush();
  changes.append("tool-call", record);
}
