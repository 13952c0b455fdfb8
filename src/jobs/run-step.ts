/**
 * @module
 * One step of a job (DESIGN.md §3): execute the pending model response (its formal tool calls, then its
 * cell), then — unless the job finished — ask the model for the next response and commit it **before** it is
 * executed. Everything a step changes is committed in one transaction at its end, so a crash loses at most
 * the step in progress and never a committed model reply.
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import { generateReply } from "../models/generate-reply.ts";
import type { HistoryRow, JobCommit, JobRow, JobStatus, JsonValue, Store, VariableRow } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import { renderPrompt } from "../docs/render-prompt.ts";
import { compileCell } from "../workspace/cell-compiler.ts";
import type { Executor } from "../workspace/executor.ts";
import type { ExposedClasses } from "../workspace/membrane/host-references.ts";
import { Workspace, type WorkspaceLimits, type WorkspaceReport } from "../workspace/workspace.ts";
import type { Agent } from "./agent.ts";
import { buildMessages } from "./build-messages.ts";
import { extractMarkdownCode } from "./chat-styles/markdown.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData, ModelResponseRecord, SubmittedRecord } from "./history.ts";
import type { JobSession, JobSessions } from "./job-sessions.ts";

/** Default turn limit of a job. */
export const DEFAULT_MAX_TURNS = 50;

/** What a step runs against. */
export interface StepEnvironment {
  store: Store;
  executor: Executor;
  /** The registered agent for a role; throws `NoSuchAgentError`. */
  agentFor(role: string): Agent;
  /** Application bindings (persist by name). */
  bindings: ReadonlyMap<string, unknown>;
  /** Classes whose objects persist by id. */
  exposed: ExposedClasses;
  limits: Partial<WorkspaceLimits>;
  defaultMaxTurns: number;
  /** Warm sessions of this process. */
  sessions: JobSessions;
  signal?: AbortSignal;
}

/** Collects what a step appends and changes, for one commit. */
class StepChanges {
  readonly history: HistoryRow[] = [];
  readonly job: NonNullable<JobCommit["job"]> = {};
  readonly put = new Map<string, VariableRow>();
  readonly deleted = new Set<string>();
  #seq: number;

  constructor(row: JobRow) {
    this.#seq = row.historyLength;
  }

  append<K extends HistoryKind>(kind: K, data: HistoryRecordData[K]): number {
    const seq = this.#seq++;
    this.history.push({ seq, kind, at: Date.now(), data: data as unknown as JsonValue });
    return seq;
  }

  status(status: JobStatus, reason?: string, exitStatus?: string): void {
    this.job.status = status;
    const data: HistoryRecordData["status"] = { status };
    if (reason !== undefined) data.reason = reason;
    if (exitStatus !== undefined) data.exitStatus = exitStatus;
    this.append("status", data);
  }

  absorb(report: WorkspaceReport): void {
    for (const call of report.toolCalls) this.append("tool-call", call);
    for (const entry of report.console) this.append("console", entry);
    for (const row of report.put) {
      this.deleted.delete(row.name);
      this.put.set(row.name, row);
    }
    for (const name of report.deleted) {
      this.put.delete(name);
      this.deleted.add(name);
    }
    if (report.put.length || report.deleted.length) {
      this.append("variables", { put: report.put.map((row) => row.name), deleted: report.deleted });
    }
  }

  commit(row: JobRow): JobCommit {
    return {
      id: row.id,
      expectedVersion: row.version,
      job: this.job,
      putVariables: [...this.put.values()],
      deleteVariables: [...this.deleted],
      appendHistory: this.history,
    };
  }
}

/** Runs one step of job `id` and commits it. Returns the job's status afterwards. */
export async function runStep(env: StepEnvironment, id: string): Promise<JobStatus> {
  const row = await env.store.getJob(id);
  if (!row) throw new NoSuchJobError({ jobId: id });
  let status: JobStatus;
  try {
    status = row.status;
  } catch (error) {
    return failCorrupt(env, row, error);
  }
  if (status === "DONE" || status === "FAILED") return status;
  const agent = env.agentFor(row.role);
  const session: JobSession = env.sessions.take(id, row.version, agent) ?? {
    version: row.version,
    agent,
    history: (await env.store.getHistory(id)) as unknown as HistoryRecord[],
    workspace: undefined,
  };
  const changes = new StepChanges(row);
  let committed = false;
  try {
    try {
      status = await executeAndAsk(env, agent, row, session, changes);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      changes.status("FAILED", error.message);
      changes.job.error = error.message;
      status = "FAILED";
    }
    await env.store.commit(changes.commit(row));
    committed = true;
  } finally {
    const reusable = committed && status !== "DONE" && status !== "FAILED" && (session.workspace?.reusable ?? true);
    if (reusable) {
      session.version = row.version + 1;
      session.history.push(...(changes.history as unknown as HistoryRecord[]));
      env.sessions.keep(id, session);
    } else {
      session.workspace?.dispose();
    }
  }
  return status;
}

async function failCorrupt(env: StepEnvironment, row: JobRow, error: unknown): Promise<JobStatus> {
  const message = error instanceof Error ? error.message : String(error);
  await env.store.commit({ id: row.id, expectedVersion: row.version, job: { status: "FAILED", error: message } });
  return "FAILED";
}

async function executeAndAsk(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, changes: StepChanges,
): Promise<JobStatus> {
  let status = row.status;
  const setStatus = (next: JobStatus, reason?: string, exitStatus?: string) => {
    status = next;
    changes.status(next, reason, exitStatus);
  };
  if (status === "READY") setStatus("STARTED");
  const history = session.history;

  if (row.pendingSeq !== null) {
    const pending = history.find((record) => record.seq === row.pendingSeq);
    if (!pending || pending.kind !== "model-response") {
      throw new CorruptRecordError({ jobId: row.id, location: `history[${row.pendingSeq}] (the pending model response)` });
    }
    changes.job.pendingSeq = null;
    const exitStatus = await execute(env, agent, row, session, pending.data, changes);
    if (exitStatus !== undefined) {
      changes.job.exitStatus = exitStatus;
      setStatus("DONE", undefined, exitStatus);
      return status;
    }
  }

  const maxTurns = agent.limits.maxTurns ?? env.defaultMaxTurns;
  if (row.turns >= maxTurns) {
    const reason = `harness limit: the job used all ${maxTurns} of its model turns (maxTurns) without calling exit()`;
    changes.job.error = reason;
    setStatus("FAILED", reason);
    return status;
  }
  const model = agent.model;
  if (!model) {
    const reason = `agent '${agent.role}' has no model: pass one as new Agent({ model })`;
    changes.job.error = reason;
    setStatus("FAILED", reason);
    return status;
  }
  const submitted = history.find((record) => record.kind === "submitted")?.data as SubmittedRecord | undefined;
  const system = renderPrompt(agent.systemPrompt, {
    tools: agent.tools,
    sharedVars: submitted?.vars ?? [],
    params: row.params,
  });
  const messages = buildMessages([...history, ...(changes.history as unknown as HistoryRecord[])]);
  let reply;
  try {
    reply = await generateReply(model, { system, messages, tools: [], ...(env.signal ? { abortSignal: env.signal } : {}) });
  } catch (error) {
    const reason = `model call failed: ${formatError(error)}`;
    changes.job.error = reason;
    setStatus("FAILED", reason);
    return status;
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
  return status;
}

/** Executes a committed response; returns the encoded exit status when the code called `exit`. */
async function execute(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, response: ModelResponseRecord, changes: StepChanges,
): Promise<string | undefined> {
  session.workspace ??= await openWorkspace(env, agent, row);
  const workspace = session.workspace;
  let exitStatus: string | undefined;
  for (const call of response.toolCalls) {
    const report = await workspace.callFormal(call.name, call.args, call.id);
    changes.absorb(report);
  }
  // A reply of only formal tool calls has no cell; any other reply runs, so an empty one reads as such.
  const code = response.code ?? "";
  const skipCell = response.toolCalls.length > 0 && compileCell(code).kind === "empty";
  if (!skipCell) {
    const report = await workspace.runCell(code);
    changes.absorb(report);
    exitStatus = report.exitStatus;
  }
  return exitStatus;
}

async function openWorkspace(env: StepEnvironment, agent: Agent, row: JobRow): Promise<Workspace> {
  const bindings = new Map(env.bindings);
  for (const [name, value] of Object.entries(agent.context)) bindings.set(name, value);
  try {
    return await Workspace.open(
      {
        executor: env.executor,
        limits: env.limits,
        job: { id: row.id, role: row.role },
        tools: agent.tools.filter((tool) => !tool.hidden),
        globals: agent.context,
        bindings,
        exposed: env.exposed,
        ...(env.signal ? { signal: env.signal } : {}),
      },
      await env.store.getVariables(row.id),
    );
  } catch (error) {
    throw new CorruptRecordError({ jobId: row.id, location: "workspace variables", cause: error });
  }
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
