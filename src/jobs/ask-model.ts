/**
 * @module
 * Asking the model for the next response: render the system prompt, build the messages from the history,
 * call the model, and record its reply as the pending `model-response`. A failed call ends the job `FAILED`
 * with the reason.
 */
import { renderPrompt } from "../docs/render-prompt.ts";
import { generateReply } from "../models/generate-reply.ts";
import type { JobRow, JsonValue } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import { isolationNotice } from "../workspace/resolve-executor.ts";
import type { Agent } from "./agent.ts";
import { buildMessages } from "./build-messages.ts";
import { extractMarkdownCode } from "./chat-styles/markdown.ts";
import type { HistoryRecord, ModelResponseRecord, SubmittedRecord } from "./history.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";

/** Asks the model and records its reply (or fails the job). `history` includes this step's records. */
export async function askModel(
  env: StepEnvironment, agent: Agent, row: JobRow, history: readonly HistoryRecord[], changes: StepChanges,
): Promise<void> {
  const model = agent.model;
  if (!model) return changes.fail(`agent '${agent.role}' has no model: pass one as new Agent({ model })`);
  const submitted = history.find((record) => record.kind === "submitted")?.data as SubmittedRecord | undefined;
  const system = renderPrompt(agent.systemPrompt, {
    tools: agent.tools,
    sharedVars: submitted?.vars ?? [],
    // The isolation the prompt describes comes from the executor in use, whatever the job's parameters say.
    params: { ...row.params, workspace_isolation: isolationNotice(env.executor) },
  });
  const messages = buildMessages(history);
  let reply;
  try {
    reply = await generateReply(model, { system, messages, tools: [], ...(env.signal ? { abortSignal: env.signal } : {}) });
  } catch (error) {
    return changes.fail(`model call failed: ${formatError(error)}`);
  }
  const turn = row.turns + 1;
  const record: ModelResponseRecord = {
    turn,
    text: reply.text,
    code: extractMarkdownCode(reply.text),
    toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args as Record<string, JsonValue> })),
    reasoning: reply.reasoning as ModelResponseRecord["reasoning"],
    usage: reply.usage,
    model: reply.modelName,
  };
  changes.job.pendingSeq = changes.append("model-response", record);
  changes.job.turns = turn;
  changes.job.usage = addUsage(row.usage, reply.usage);
}

function addUsage(total: Record<string, JsonValue>, usage: ModelResponseRecord["usage"]): Record<string, JsonValue> {
  const number = (key: string) => (typeof total[key] === "number" ? (total[key] as number) : 0);
  return {
    ...total,
    inputTokens: number("inputTokens") + usage.inputTokens,
    cachedInputTokens: number("cachedInputTokens") + usage.cachedInputTokens,
    outputTokens: number("outputTokens") + usage.outputTokens,
  };
}
