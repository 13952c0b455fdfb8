/**
 * @module
 * A model's formal tool call, made durably: like a side-effecting crossing of a cell, its
 * intent is written to the job's journal (part `formal:<call id>`) before the tool runs, and its record after.
 * A response replayed after a crash or a suspension does not make a recorded call again: its record is given
 * to the step again (or not at all, when the suspension's commit already holds it). A call that started and
 * never finished is in doubt: an `idempotent` tool is called again with the same idempotency key, any other
 * is recorded as `InDoubtError`, so the model checks before acting again.
 */
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { committedCount, journalLength, type DurableCellContext } from "./durable-cell.ts";
import type { RecordedToolCall } from "../history/history.ts";
import { decodeJobChanges } from "../../tools/job-request.ts";
import { InDoubtError } from "../../errors/in-doubt-error.ts";
import { formatError } from "../../tools/call-tool.ts";

/** What a formal call did: whether it failed (an exception for the harness), and the job's end if it ended it. */
export interface FormalOutcome {
  failed: boolean;
  /** The encoded exit status, when the call ended the job (a framework tool such as `answer`). */
  exitStatus?: string;
}

/** Runs one formal call. */
export async function runFormalCall(
  context: DurableCellContext, workspace: Workspace, call: RecordedToolCall, journal: ReadonlyMap<string, JournalItem[]>, options: { allowHiddenTools?: boolean } = {},
): Promise<FormalOutcome> {
  const { changes, tx, row } = context;
  const part = `formal:${call.id}`;
  const items = journal.get(part) ?? [];
  const done = items.find((item) => item.t === "done");
  const committed = committedCount(row.state, part);
  if (done && done.t === "done") {
    // Made before; its record is the step's again unless a suspension's commit holds it already.
    const jobChanges = decodeJobChanges(done.fx?.job);
    if (committed < items.length) {
      for (const record of done.fx?.toolCalls ?? []) changes.append("tool-call", record as ToolCallRecord);
      changes.applyJobChanges(jobChanges);
    }
    const exit = jobChanges.find((change) => change.type === "exit");
    return {
      failed: (done.fx?.toolCalls ?? []).some((record) => (record as { error?: unknown }).error !== undefined),
      ...(exit ? { exitStatus: workspace.encodeExit(exit.status) } : {}),
    };
  }
  tx.journalFor(row.cell, journalLength(journal));
  const tool = workspace.tool(call.name);
  if (items.length && !tool?.idempotent) {
    const error = formatError(new InDoubtError({ call: `${call.name}(…)` }));
    const record: ToolCallRecord = { name: call.name, origin: "formal", callId: call.id, args: "", error, durationMs: 0 };
    tx.appendPart([{ t: "done", seq: 0, r: "", fx: { toolCalls: [record] } }], part);
    await tx.flush();
    changes.append("tool-call", record);
    return { failed: true };
  }
  if (!items.length) {
    tx.appendPart([{ t: "intent", seq: 0, op: "formal", h: 0, w: `${call.name}(…)` }], part);
    await tx.flush();
  }
  const report = await workspace.callFormal(call.name, call.args, call.id, { ...(context.env.trace ? { trace: context.env.trace } : {}), ...options });
  tx.appendPart([{ t: "done", seq: 0, r: "", fx: { toolCalls: report.toolCalls, console: report.console, ...(report.jobChanges ? { job: report.jobChanges } : {}) } }], part);
  await tx.flush();
  changes.absorb(report);
  return {
    failed: report.toolCalls.some((record) => record.origin === "formal" && record.error !== undefined),
    ...(report.exitStatus !== undefined ? { exitStatus: report.exitStatus } : {}),
  };
}
