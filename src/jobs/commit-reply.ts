/**
 * @module
 * What happens to a model reply before the step commits: its usage and cost are counted, the post-processors
 * see it (and may rewrite, annotate or veto it), it is recorded as the pending `model-response`, its dialog
 * text goes to the user (dialog styles), and a final dialog reply ends the job's turn (`DONE`).
 */
import { costOf, findPrice } from "../models/pricing.ts";
import type { ModelReply, ModelUsage } from "../models/model-request.ts";
import type { JobRow, JsonValue } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import type { Agent } from "./agent.ts";
import type { ChatStyleRules } from "./chat-styles/chat-style.ts";
import { countActions } from "./count-actions.ts";
import { deliverDialog } from "./dialog.ts";
import { checkUsage, effectiveLimits } from "./harness.ts";
import type { HistoryRecord, ModelResponseRecord } from "./history.ts";
import { applyPostProcessors, type ReplyDraft } from "./post-processor.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";

/** Post-processes, records and (in dialog styles) delivers one model reply. */
export async function commitReply(
  env: StepEnvironment, agent: Agent, row: JobRow, history: readonly HistoryRecord[], changes: StepChanges,
  style: ChatStyleRules, reply: ModelReply,
): Promise<void> {
  const turn = row.turns + 1;
  const job = { id: row.id, role: row.role };
  changes.job.turns = turn;
  const price = findPrice(env.models.pricing, reply.modelName);
  const cost = price ? costOf(reply.usage, price) : undefined;
  changes.job.usage = addUsage(row.usage, reply.usage, cost);
  const priced = { usage: reply.usage, ...(cost === undefined ? {} : { cost }) };

  const draft: ReplyDraft = {
    text: reply.text,
    toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args as Record<string, JsonValue> })),
  };
  let processing;
  try {
    processing = await applyPostProcessors(
      agent.postProcessors,
      draft,
      { job, style: style.name, turn, actions: countActions(history, style), history },
      (candidate) => style.isFinal({ ...candidate, code: style.parseReply(candidate.text).code }),
    );
  } catch (error) {
    return changes.fail(`post-processing the reply of turn ${turn} failed: ${formatError(error)}`);
  }
  if (processing.draft === null) {
    for (const record of processing.records) changes.append("post-processed", record.veto === undefined ? record : { ...record, ...priced });
  } else {
    const parsed = style.parseReply(processing.draft.text);
    const record: ModelResponseRecord = {
      turn,
      text: processing.draft.text,
      code: parsed.code,
      toolCalls: processing.draft.toolCalls,
      reasoning: reply.reasoning as ModelResponseRecord["reasoning"],
      ...priced,
      model: reply.modelName,
    };
    const seq = changes.append("model-response", record);
    for (const note of processing.records) changes.append("post-processed", note);
    // A final dialog reply has nothing to execute; any other reply runs at the start of the next step.
    const final = style.dialog && style.isFinal(record);
    changes.job.pendingSeq = final ? null : seq;
    const delivered = style.dialog ? await deliverDialog(agent, job, parsed.dialog, changes) : true;
    if (final && delivered && !processing.activated) changes.setStatus("DONE");
  }
  const limits = effectiveLimits(agent.limits, env.harness);
  const exceeded = checkUsage(limits, changes.job.usage, reply.modelName, price !== undefined);
  // A job that just finished keeps its answer: the limits stop further spending, not work already done.
  if (exceeded && changes.status !== "DONE") changes.fail(exceeded);
}

function addUsage(total: Record<string, JsonValue>, usage: ModelUsage, cost: number | undefined): Record<string, JsonValue> {
  const number = (key: string) => (typeof total[key] === "number" ? (total[key] as number) : 0);
  const sum: Record<string, JsonValue> = {
    ...total,
    inputTokens: number("inputTokens") + usage.inputTokens,
    cachedInputTokens: number("cachedInputTokens") + usage.cachedInputTokens,
    outputTokens: number("outputTokens") + usage.outputTokens,
  };
  if (cost !== undefined) sum.cost = number("cost") + cost;
  return sum;
}
