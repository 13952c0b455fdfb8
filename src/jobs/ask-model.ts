/**
 * @module
 * Asking the model for the next response: resolve the job's model, render the system prompt, build the
 * messages from the history in the job's chat style, offer the formal tools, and call the model with retries
 * and a timeout. The reply is handed to `commit-reply.ts`. A failed call ends the job `FAILED` with the reason.
 */
import { renderPrompt } from "../docs/render-prompt.ts";
import { ModelCallError } from "../errors/model-call-error.ts";
import { callWithRetries } from "../models/call-with-retries.ts";
import { generateReply } from "../models/generate-reply.ts";
import type { LanguageModel } from "../models/language-model.ts";
import type { JobRow } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import { selectTools } from "../tools/tool-registry.ts";
import { isolationNotice } from "../workspace/resolve-executor.ts";
import type { Agent } from "./agent.ts";
import { buildMessages } from "./build-messages.ts";
import { chatStyleOf } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";
import { commitReply } from "./commit-reply.ts";
import type { HistoryRecord, SubmittedRecord } from "./history.ts";
import { requestTools } from "./request-tools.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";

/** Asks the model and commits its reply (or fails the job). `history` includes this step's records. */
export async function askModel(
  env: StepEnvironment, agent: Agent, row: JobRow, history: readonly HistoryRecord[], changes: StepChanges,
): Promise<void> {
  const style = chatStyleRules(chatStyleOf(row.metadata));
  let model: LanguageModel | undefined;
  try {
    model = await modelFor(env, agent, row);
  } catch (error) {
    return changes.fail(`cannot use the job's MODEL: ${formatError(error)}`);
  }
  if (!model) {
    return changes.fail(`agent '${agent.role}' has no model: pass one as new Agent({ model }) or set metadata MODEL (e.g. "openai/gpt-5-mini")`);
  }
  const submitted = history.find((record) => record.kind === "submitted")?.data as SubmittedRecord | undefined;
  // The prompt lists the agent's own visible tools meant for the job's chat style; the provider payload
  // carries `ts_cli` (DIRECT) and what LLM_TOOLS_SCOPE selects, in the provider's schema profile.
  let tools;
  try {
    tools = requestTools(agent, style.name, row.metadata, model.provider);
  } catch (error) {
    return changes.fail(`formal tools: ${formatError(error)}`, error);
  }
  const system = renderPrompt(agent.systemPrompt, {
    tools: selectTools(agent.registry.own, "ALL", { chatStyle: style.name }),
    sharedVars: submitted?.vars ?? [],
    // The isolation the prompt describes comes from the executor in use, whatever the job's parameters say.
    params: { ...row.params, workspace_isolation: isolationNotice(env.executor) },
  });
  const box = typeof row.metadata.XML_BOX_CONSOLE === "string" && row.metadata.XML_BOX_CONSOLE ? row.metadata.XML_BOX_CONSOLE : env.xmlBoxConsole;
  const messages = buildMessages(history, { style, provider: model.provider, ...(box ? { xmlBox: box } : {}) });
  let reply;
  try {
    reply = await callWithRetries(
      (signal) => generateReply(model, { system, messages, tools, abortSignal: signal }),
      env.models.retry,
      env.signal,
    );
  } catch (error) {
    if (env.signal?.aborted) throw error;
    return changes.fail(error instanceof ModelCallError ? error.message : `model call failed: ${formatError(error)}`, error);
  }
  await commitReply(env, agent, row, history, changes, style, reply);
}

/** The agent's model, else the one the job's `MODEL` names; `undefined` when there is neither. */
async function modelFor(env: StepEnvironment, agent: Agent, row: JobRow): Promise<LanguageModel | undefined> {
  if (agent.model) return agent.model;
  const name = row.metadata.MODEL;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  return env.models.registry.resolve(name);
}
