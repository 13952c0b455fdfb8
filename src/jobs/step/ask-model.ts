/**
 * @module
 * Asking the model for the next response: resolve the job's model, render the system prompt, build the
 * messages from the history in the job's chat style, offer the formal tools, and stream the model's reply with
 * retries and a timeout, emitting its text as it arrives. Every failed attempt is recorded (`model-attempt`,
 * with the usage it reported, which counts in the job's totals). The reply is handed to `commit-reply.ts`. A
 * call that fails for good ends the job `FAILED` with the reason.
 */
import { recordModelReply, startModelSpan } from "../../telemetry/spans.ts";
import { endSpan } from "../../telemetry/tracer.ts";
import { ModelCallError } from "../../errors/model-call-error.ts";
import { callWithRetries, type FailedAttempt } from "../../models/call-with-retries.ts";
import { generateReply } from "../../models/generate-reply.ts";
import { describeModelError } from "../../models/describe-model-error.ts";
import { effectiveLimits } from "../../agents/harness.ts";
import { checkUsage } from "./harness-checks.ts";
import type { LanguageModel } from "../../models/language-model.ts";
import type { ModelUsage } from "../../models/model-request.ts";
import { costOf, findPrice } from "../../models/pricing.ts";
import { knownCounts } from "../../models/token-counts.ts";
import type { JobRow } from "../../store/store.ts";
import { formatError } from "../../tools/call-tool.ts";
import { selectTools } from "../../tools/tool-registry.ts";
import { isolationNotice } from "../../workspace/resolve-executor.ts";
import type { Agent } from "../../agents/agent.ts";
import { chatStyleOf } from "../../agents/chat-styles/chat-style.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";
import { commitReply } from "./commit-reply.ts";
import type { HistoryRecord, ModelAttemptRecord } from "../history/history.ts";
import { PromptMemory } from "../prompt/prompt-memory.ts";
import { recordedUsage } from "../history/recorded-reply.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { addUsage } from "./usage-totals.ts";
import { checkTemperature, type ModelCallSettings } from "../../models/model-call-settings.ts";
import { parseModelString } from "../../models/model-string.ts";
import { jobDifficulty, modelFor as modelForDifficulty, parseModelChoice, type Difficulty } from "../../agents/difficulty.ts";
import { hasDifficultySections, promptForDifficulty } from "../../agents/prompt-sections.ts";
import { languageHint, languageRule, parseLocale } from "../../agents/locale.ts";
import { settingIsOn } from "../../agents/job-settings.ts";
import { jobTools } from "../../agents/job-tools.ts";
import type { JobMemory } from "../memory/job-memory.ts";
import type { ReplyJournal } from "./journaled-reply.ts";
import { MESSAGE_RESTART_REASON, restartedState } from "./job-state.ts";

/**
 * Asks the model and commits its reply (or fails the job). `history` includes this step's records; `memory` is
 * what the job's previous request was built from (a warm session's), or a fresh one.
 */
export async function askModel(
  env: StepEnvironment, agent: Agent, row: JobRow, history: readonly HistoryRecord[], changes: StepChanges,
  memory: PromptMemory = new PromptMemory(), replies?: ReplyJournal, shared?: JobMemory,
): Promise<void> {
  const style = chatStyleRules(chatStyleOf(row.metadata));
  // The job's difficulty picks the model of a MODEL mapping and the prompt sections shown.
  const level = jobDifficulty({ ...row.state, ...changes.job.state }, row.metadata);
  let chosen: ChosenModel | undefined;
  try {
    chosen = await modelFor(env, agent, row, level);
  } catch (error) {
    return changes.fail(`cannot use the job's MODEL: ${formatError(error)}`);
  }
  if (!chosen) {
    return changes.fail(`agent '${agent.role}' has no model: pass one as new Agent({ model }) or set metadata MODEL (e.g. "openai/gpt-5-mini")`);
  }
  const { model, settings } = chosen;
  const locale = typeof row.metadata.LOCALE === "string" ? parseLocale(row.metadata.LOCALE) : undefined;
  const first = history.find((record) => record.kind === "submitted");
  const submitted = first?.kind === "submitted" ? first.data : undefined;
  // The prompt lists the agent's own visible tools meant for the job's chat style; the provider payload
  // carries `ts_cli` (DIRECT) and what LLM_TOOLS_SCOPE selects, in the provider's schema profile.
  let tools;
  try {
    tools = memory.tools(agent, style.name, row.metadata, model.provider);
  } catch (error) {
    return changes.fail(`formal tools: ${formatError(error)}`, error);
  }
  const rendered = memory.system(promptForDifficulty(agent.systemPrompt, level), {
    // The agent's own tools, then the ones the job made (createTool).
    tools: selectTools([...agent.registry.own, ...jobTools(agent.registry, { ...row.state, ...changes.job.state }).created], "ALL", { chatStyle: style.name }),
    // The job's initial variables, then the shared-memory names it reads, with their categories.
    sharedVars: shared ? [...(submitted?.vars ?? []), ...shared.names().map(([name, category]) => ({ name, type: `${category}, shared memory` }))] : submitted?.vars ?? [],
    ...(shared ? { sharedMemory: sharedMemoryNote(shared) } : {}),
    // The isolation the prompt describes comes from the executor in use, whatever the job's parameters say.
    params: { ...row.params, workspace_isolation: isolationNotice(env.executor) },
  });
  const system = locale && settingIsOn(row.metadata.AUTO_LANG_RULE) ? `${rendered}\n\n${languageRule(locale)}` : rendered;
  const hint = locale && settingIsOn(row.metadata.AUTO_LANG_HINT) ? languageHint(locale) : undefined;
  const box = typeof row.metadata.XML_BOX_CONSOLE === "string" && row.metadata.XML_BOX_CONSOLE ? row.metadata.XML_BOX_CONSOLE : env.xmlBoxConsole;
  const messages = memory.messages(history, { style, provider: model.provider, ...(box ? { xmlBox: box } : {}), ...(hint ? { hint } : {}) });
  const turn = row.turns + 1;
  const modelName = `${model.provider}/${model.modelId}`;
  // What the attempt in flight has produced so far, for the record of an attempt that fails.
  let progress: AttemptProgress = { text: "", usage: undefined, started: 0 };
  const messagesSeen = history.filter((record) => record.kind === "user-message").length;
  const turnInfo = difficultyMatters(agent, row) ? { difficulty: level } : {};
  // The reply an earlier attempt at this step received and journaled: this turn is paid already.
  const journaled = replies?.find(turn);
  if (journaled) {
    changes.clearJournal = true;
    // Messages pushed since that request are marked unseen by the reply (the prompt shows them after it).
    const unseen = history.filter((record) => record.kind === "user-message").slice(journaled.messagesSeen).map((record) => record.seq);
    await commitReply(env, agent, row, history, changes, style, journaled.reply, memory, unseen, turnInfo);
    // A dialog turn the reply ended has a message to answer: the job goes on, as a pushed message restarts it.
    if (unseen.length && style.dialog && changes.status === "DONE") {
      changes.setStatus("STARTED", MESSAGE_RESTART_REASON);
      changes.job.state = restartedState({ ...row.state, ...(changes.job.state ?? {}) }, changes.job.turns ?? row.turns);
    }
    return;
  }
  let reply;
  try {
    reply = await callWithRetries(
      async (signal, attempt) => {
        // A worker stopped past its lease must not pay for a turn the job's new holder asks for too.
        await replies?.confirmHeld();
        const current: AttemptProgress = { text: "", usage: undefined, started: performance.now() };
        progress = current;
        const traced = startModelSpan(env.trace, model, attempt);
        return generateReply(model, { system, messages, tools, abortSignal: signal, jobId: row.id, ...(Object.keys(settings).length ? { settings } : {}) }, {
          onTextDelta: (delta) => {
            current.text += delta;
            env.emit?.({ kind: "model-text", jobId: row.id, role: row.role, turn, attempt, delta });
          },
          onUsage: (usage) => void (current.usage = usage),
        }).then(
          (reply) => {
            recordModelReply(traced.span, reply);
            endSpan(traced.span);
            return reply;
          },
          (error: unknown) => {
            endSpan(traced.span, error);
            throw error;
          },
        );
      },
      env.models.retry,
      env.signal,
      {
        onAttemptFailed: (failure) => recordFailedAttempt(env, changes, row, turn, modelName, failure, progress),
        describeError: (error) => describeModelError(error, modelName),
        // The spending limits hold between attempts too: dropped streams are paid for.
        stopBeforeRetry: () => {
          const { reported, cost, priced } = attemptSpending(env, modelName, progress);
          const usage = changes.job.usage ?? row.usage;
          return checkUsage(effectiveLimits(agent.harness, env.harness), reported ? addUsage(usage, reported, cost) : usage, modelName, priced);
        },
      },
    );
  } catch (error) {
    if (env.signal?.aborted) throw error;
    return changes.fail(error instanceof ModelCallError ? error.message : `model call failed: ${formatError(error)}`, error);
  }
  if (replies) {
    // Durable before anything else can fail: a step done again takes it from here (`journaled-reply.ts`).
    await replies.record(turn, reply, messagesSeen);
    changes.clearJournal = true;
  }
  await commitReply(env, agent, row, history, changes, style, reply, memory, [], turnInfo);
}

/** What one attempt produced before it ended. */
interface AttemptProgress {
  text: string;
  usage: ModelUsage | undefined;
  started: number;
}

/**
 * Records a failed attempt. Its usage counts in the job's totals: what the provider reported, or — when it
 * reported none but text had arrived (tokens were spent) — unknown usage.
 */
function recordFailedAttempt(
  env: StepEnvironment, changes: StepChanges, row: JobRow, turn: number, modelName: string, failure: FailedAttempt, progress: AttemptProgress,
): void {
  const { reported, cost } = attemptSpending(env, modelName, progress);
  const record: ModelAttemptRecord = {
    turn,
    attempt: failure.attempt,
    error: failure.error,
    retried: failure.retried,
    ...(failure.timedOut ? { timedOut: true } : {}),
    ...(reported ? { usage: recordedUsage(reported) } : {}),
    ...(cost === undefined ? {} : { cost }),
    ...(progress.text !== "" ? { text: progress.text } : {}),
    durationMs: Math.round(performance.now() - progress.started),
    model: modelName,
  };
  changes.append("model-attempt", record);
  if (reported) changes.job.usage = addUsage(changes.job.usage ?? row.usage, reported, cost);
}

/**
 * What a failed attempt spent: what the provider reported, or — when it reported none but text had arrived
 * (tokens were spent) — unknown usage; and its cost when the model has a price.
 */
function attemptSpending(env: StepEnvironment, modelName: string, progress: AttemptProgress): { reported: ModelUsage | undefined; cost: number | undefined; priced: boolean } {
  const reported = progress.usage ?? (progress.text !== "" ? { inputTokens: null, cachedInputTokens: null, outputTokens: null } : undefined);
  const price = findPrice(env.models.pricing, modelName);
  const counts = reported && knownCounts(reported);
  return { reported, cost: price && counts ? costOf(counts, price) : undefined, priced: price !== undefined };
}

/** What the default prompt's `{shared_memory}` says of a job's shared memory and its tools. */
function sharedMemoryNote(shared: JobMemory): string {
  const names = "\nNames marked shared memory are read-only in your code; listMemory(category?) prints them with their descriptions.";
  if (shared.access !== "write") return names;
  return `${names} remember(category, key, value, description) stores or changes one for later jobs too (categories: ${shared.categories.join(", ")}).`;
}

/** The model of a turn and the options of its call. */
interface ChosenModel {
  model: LanguageModel;
  settings: ModelCallSettings;
}

/**
 * The agent's model, unless the job's `MODEL` is its own (`state.ownModel`: a fork given a `model`); else the one the
 * job's `MODEL` names for `level` (a mapping names one per level; `PROVIDER` completes a string that names no
 * provider); `undefined` when there is neither. The options of the call: the job's `TEMPERATURE`, under the model
 * string's own options.
 */
async function modelFor(env: StepEnvironment, agent: Agent, row: JobRow, level: Difficulty): Promise<ChosenModel | undefined> {
  const temperature = row.metadata.TEMPERATURE;
  const base: ModelCallSettings = temperature === undefined || temperature === null ? {} : { temperature: checkTemperature(temperature) };
  if (agent.model && row.state.ownModel !== true) return { model: agent.model, settings: base };
  const setting = row.metadata.MODEL;
  if (typeof setting !== "string" || setting.trim() === "") return undefined;
  const name = modelForDifficulty(parseModelChoice(setting), level);
  const provider = typeof row.metadata.PROVIDER === "string" && row.metadata.PROVIDER.trim() ? row.metadata.PROVIDER : undefined;
  const { options } = parseModelString(name, provider);
  const model = await env.models.registry.resolve(name, provider ? { defaultProvider: provider } : {});
  return { model, settings: { ...base, ...options } };
}

/** Whether the job's difficulty changes anything, so its turns record the level they ran at. */
function difficultyMatters(agent: Agent, row: JobRow): boolean {
  const model = row.metadata.MODEL;
  return (!agent.model && typeof model === "string" && parseModelChoice(model).kind === "mapping") ||
    row.metadata.DEFAULT_DIFFICULTY !== undefined || row.state.difficulty !== undefined || hasDifficultySections(agent.systemPrompt);
}
