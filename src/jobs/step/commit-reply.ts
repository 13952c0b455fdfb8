/**
 * @module
 * What happens to a model reply before the step commits: its usage and cost are counted, the post-processors
 * see it (and may rewrite, annotate or veto it), it is recorded as the pending `model-response` with its
 * finish reason, its dialog text is recorded for the user (dialog styles; sent once the step has committed),
 * and a final dialog reply ends the job's turn (`DONE`). Whether it will run at all (a reply cut off, filtered or empty is held) is
 * `replyDisposition`'s call; a held reply is still recorded, paid for and shown to the model.
 */
import type { ModelReply } from "../../models/model-request.ts";
import { costOf, findPrice } from "../../models/pricing.ts";
import { knownCounts } from "../../models/token-counts.ts";
import type { JobRow } from "../../store/store.ts";
import { formatError } from "../../tools/call-tool.ts";
import type { Agent } from "../../agents/agent.ts";
import type { ChatStyleRules } from "../../agents/chat-styles/chat-style.ts";
import { recordDialog } from "./dialog.ts";
import { effectiveLimits } from "../../agents/harness.ts";
import { checkUsage } from "./harness-checks.ts";
import type { HistoryRecord, ModelResponseRecord } from "../history/history.ts";
import type { ReplyDraft } from "../../agents/post-processor.ts";
import { applyPostProcessors } from "./apply-post-processors.ts";
import type { PromptMemory } from "../prompt/prompt-memory.ts";
import { recordedParts, recordedReasoning, recordedToolCall, recordedUsage } from "../history/recorded-reply.ts";
import { replyDisposition } from "./reply-disposition.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { addUsage } from "./usage-totals.ts";
import { dueReminder } from "../../agents/reminders.ts";

/**
 * The reminder due at the end of this turn: none if one fired since the user last wrote; else the first whose
 * `minDialogLength` the dialog has reached (the user's messages and the agent's, this reply's included).
 */
function dueReminderIn(reminders: Agent["reminders"], history: readonly HistoryRecord[], changes: StepChanges): { text: string } | undefined {
  if (!reminders.length) return undefined;
  // `history` ends where the step asked the model; this reply's records came after.
  const asked = history.at(-1)?.seq ?? -1;
  const records = [...history, ...changes.records.filter((record) => record.seq > asked)];
  const lastUser = records.findLastIndex((record) => record.kind === "user-message");
  if (records.slice(lastUser + 1).some((record) => record.kind === "reminder")) return undefined;
  const length = records.filter((record) => record.kind === "user-message" || record.kind === "dialog").length;
  return dueReminder(reminders, length);
}

/**
 * Post-processes, records and (in dialog styles) delivers one model reply. `unseen`: the user messages (their
 * `seq`s) pushed after the request that got the reply, which it did not see.
 */
export async function commitReply(
  env: StepEnvironment, agent: Agent, row: JobRow, history: readonly HistoryRecord[], changes: StepChanges,
  style: ChatStyleRules, reply: ModelReply, memory: PromptMemory, unseen: readonly number[] = [], turnInfo: { difficulty?: ModelResponseRecord["difficulty"] } = {},
): Promise<void> {
  const turn = row.turns + 1;
  const job = { id: row.id, role: row.role };
  changes.job.turns = turn;
  const price = findPrice(env.models.pricing, reply.modelName);
  const counts = knownCounts(reply.usage);
  const cost = price && counts ? costOf(counts, price) : undefined;
  // Failed attempts of this turn may have added to the totals already.
  changes.job.usage = addUsage(changes.job.usage ?? row.usage, reply.usage, cost);
  const priced = { usage: recordedUsage(reply.usage), ...(cost === undefined ? {} : { cost }) };
  const finishReason = reply.finishReason;

  const draft: ReplyDraft = { text: reply.text, toolCalls: reply.toolCalls.map(recordedToolCall) };
  let processing;
  try {
    processing = await applyPostProcessors(
      agent.postProcessors,
      draft,
      // Counted only for post-processors to read.
      { job, style: style.name, turn, actions: agent.postProcessors.length > 0 ? memory.actions(history, style) : 0, history },
      (candidate) => replyDisposition({ ...candidate, code: style.parseReply(candidate.text).code, finishReason }, style).final,
    );
  } catch (error) {
    return changes.fail(`post-processing the reply of turn ${turn} failed: ${formatError(error)}`);
  }
  if (processing.draft === null) {
    for (const record of processing.records) changes.append("post-processed", record.veto === undefined ? record : { ...record, ...priced });
  } else {
    const { text, toolCalls } = processing.draft;
    const parsed = style.parseReply(text);
    const disposition = replyDisposition({ text, code: parsed.code, toolCalls, finishReason }, style);
    // The parts as they came match only the reply as it came; a rewritten reply is replayed from its text.
    const parts = processing.draft === draft ? recordedParts(reply.parts) : undefined;
    const record: ModelResponseRecord = {
      turn,
      text,
      // A held reply has no cell: what it holds must never be mistaken for code to run.
      code: disposition.run ? parsed.code : null,
      toolCalls,
      reasoning: recordedReasoning(reply),
      ...priced,
      model: reply.modelName,
      ...(turnInfo.difficulty ? { difficulty: turnInfo.difficulty } : {}),
      finishReason,
      ...(reply.rawFinishReason === undefined ? {} : { rawFinishReason: reply.rawFinishReason }),
      ...(parts ? { parts } : {}),
      ...(unseen.length ? { unseen: [...unseen] } : {}),
    };
    const seq = changes.append("model-response", record);
    for (const note of processing.records) changes.append("post-processed", note);
    // A turn-ending dialog reply has nothing to execute; any other reply runs (or is held) at the start of the next step.
    changes.job.pendingSeq = disposition.endsTurn ? null : seq;
    // Sent after the commit; a message that then fails to reach the user reopens the turn (dialog-delivery.ts).
    if (disposition.deliver) recordDialog(parsed.dialog, changes);
    if (disposition.endsTurn && !processing.activated) {
      // A reminder that is due keeps the turn open: the model reads it and replies again.
      const reminder = dueReminderIn(agent.reminders, history, changes);
      if (reminder) changes.append("reminder", { text: reminder.text });
      else changes.setStatus("DONE");
    }
  }
  const limits = effectiveLimits(agent.harness, env.harness);
  const exceeded = checkUsage(limits, changes.job.usage, reply.modelName, price !== undefined);
  // A job that just finished keeps its answer: the limits stop further spending, not work already done.
  if (exceeded && changes.status !== "DONE") changes.fail(exceeded);
}
