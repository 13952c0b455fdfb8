/**
 * @module
 * Executing a committed model response: its formal tool calls (a `ts_cli` call runs its code as a cell whose
 * output is the call's result), then its cell, in the job's workspace. A held reply (cut off, filtered, empty:
 * see `reply-disposition.ts`) and a call whose arguments the model garbled are not run; the model reads why.
 */
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { StatekError } from "../../errors/statek-error.ts";
import type { JobRow } from "../../store/store.ts";
import { compileCell } from "../../workspace/cell-compiler.ts";
import { Workspace } from "../../workspace/workspace.ts";
import type { Agent } from "../../agents/agent.ts";
import { chatStyleOf } from "../../agents/chat-styles/chat-style.ts";
import { chatStyleRules } from "../../agents/chat-styles/chat-styles.ts";
import type { ModelResponseRecord } from "../history/history.ts";
import type { JobSession } from "./job-sessions.ts";
import { replyDisposition, type HeldReply } from "./reply-disposition.ts";
import { retried } from "../../store/store-retries.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { TS_CLI } from "../../agents/chat-styles/ts-cli-tool.ts";
import { runTsCli } from "./ts-cli.ts";
import { runDurableCell, settleCell, type DurableCellContext } from "./durable-cell.ts";
import type { JournalItem } from "../../workspace/cell-journal.ts";
import { runFormalCall } from "./durable-formal.ts";
import type { StepTransaction } from "./step-transaction.ts";
import { childStarter } from "./child-jobs.ts";
import type { JobMemory } from "../memory/job-memory.ts";
import { jobAllowedTools, jobTools } from "../../agents/job-tools.ts";
import { jobDifficulty } from "../../agents/difficulty.ts";

/** What executing a response did, for the step and the harness. */
export interface Execution {
  /** The encoded exit status, when the code called `exit`. */
  exitStatus?: string;
  /** Exceptions raised: a failed cell, each failed formal tool call. */
  exceptions: number;
  /** The response's code waits for durable futures: the job suspends, and the response runs again (replayed) later. */
  suspended?: boolean;
}

/** Executes a committed response. Calls after one whose code called `exit` are not run. */
export async function executeResponse(
  env: StepEnvironment, agent: Agent, row: JobRow, session: JobSession, response: ModelResponseRecord, changes: StepChanges, tx: StepTransaction,
  readJournalOnce: () => Promise<Map<string, JournalItem[]>>,
): Promise<Execution> {
  const held = replyDisposition(response, chatStyleRules(chatStyleOf(row.metadata))).held;
  if (held) return holdReply(response, held, changes);
  session.workspace ??= await openWorkspace(env, agent, row, { memory: session.memory });
  const workspace = session.workspace;
  const context: DurableCellContext = { env, row, tx, changes, history: session.history, memory: session.memory };
  // What an earlier attempt at this response did (a crash, a suspension): replayed, never done again.
  const journal = await readJournalOnce();
  let exceptions = 0;
  for (const call of response.toolCalls) {
    if (call.invalidArguments) {
      // Nothing to run: the arguments are not an object. The model reads its mistake as the call's result.
      // The full text stays in the model-response record; the call record quotes its start.
      const args = call.invalidArguments.text.length > 2000 ? `${call.invalidArguments.text.slice(0, 2000)}…` : call.invalidArguments.text;
      changes.append("tool-call", { name: call.name, origin: "formal", callId: call.id, args, error: call.invalidArguments.error, durationMs: 0 });
      exceptions++;
      continue;
    }
    if (call.name === TS_CLI) {
      const outcome = await runTsCli(context, workspace, call, journal);
      if (outcome.suspended) return { suspended: true, exceptions };
      if (outcome.failed) exceptions++;
      if (outcome.exitStatus !== undefined) return finished(context, { exitStatus: outcome.exitStatus, exceptions });
      continue;
    }
    const formal = await runFormalCall(context, workspace, call, journal);
    if (formal.failed) exceptions++;
    // A framework tool (`answer`) ended the job: the calls after it are not made.
    if (formal.exitStatus !== undefined) return finished(context, { exitStatus: formal.exitStatus, exceptions });
  }
  // A reply of only formal tool calls has no cell (nor has a DIRECT reply: its code runs through ts_cli); any
  // other reply runs, so an empty one reads as such.
  const code = response.code ?? "";
  if (response.toolCalls.length > 0 && compileCell(code).kind === "empty") return finished(context, { exceptions });
  const { report, futures } = await runDurableCell(context, workspace, code, CELL_PART, journal);
  changes.absorb(report);
  await settleCell(context, report, futures, CELL_PART, journal);
  if (report.suspended) return { suspended: true, exceptions };
  if (report.error !== undefined) exceptions++;
  return { ...(report.exitStatus !== undefined ? { exitStatus: report.exitStatus } : {}), exceptions };
}

/** The journal part of a response's own cell. */
const CELL_PART = "cell";

/** Ends the response's cell number when its last part was not a cell (only formal calls, or an `exit` in ts_cli). */
async function finished(context: DurableCellContext, execution: Execution): Promise<Execution> {
  context.changes.clearJournal = true;
  context.changes.job.cell = context.row.cell + 1;
  return execution;
}

/** A reply that is not run: each formal call reads why as its result, the console says it, and it counts as one exception. */
function holdReply(response: ModelResponseRecord, held: HeldReply, changes: StepChanges): Execution {
  for (const call of response.toolCalls) {
    changes.append("tool-call", { name: call.name, origin: "formal", callId: call.id, args: "", error: `Error: ${held.callResult}`, durationMs: 0 });
  }
  changes.append("console", { stream: "error", text: held.notice });
  return { exceptions: 1 };
}

/**
 * Opens the job's workspace with its variables restored. `allowHidden` lets its code call hidden tools (warmup
 * code marked hidden); such a workspace must not be kept for model-written code.
 */
export async function openWorkspace(
  env: StepEnvironment, agent: Agent, row: JobRow, options: { allowHidden?: boolean; memory?: JobMemory | undefined } = {},
): Promise<Workspace> {
  const bindings = new Map(env.bindings);
  for (const [name, value] of Object.entries(agent.context)) bindings.set(name, value);
  // A store that is busy is waited out; if it stays busy the step rejects and the job stays as it was.
  const variables = await retried(env, () => env.store.getVariables(row.id));
  const tools = jobTools(agent.registry, row.state);
  try {
    return await Workspace.open(
      {
        executor: env.executor,
        limits: env.limits,
        job: { id: row.id, role: row.role, metadata: row.metadata, difficulty: jobDifficulty(row.state, row.metadata) },
        agent,
        // Every tool of the agent's registry, hidden ones too: the broker refuses hidden and not-allowed ones
        // to agent code with `NameError: tool 'x' is not exposed to this job`.
        tools: options.memory ? [...tools.all, ...options.memory.tools()] : tools.all,
        ...allowedOf(jobAllowedTools(agent.allowedTools, row.state, tools.created)),
        ...(options.allowHidden ? { allowHidden: true } : {}),
        globals: agent.context,
        bindings,
        exposed: env.exposed,
        // `ctx.startJob` in this job's tools: a child job of this one.
        startJob: childStarter(env, row.id, typeof row.metadata.LOCALE === "string" ? { locale: row.metadata.LOCALE } : {}),
        ...(env.signal ? { signal: env.signal } : {}),
        ...(options.memory ? { memory: options.memory } : {}),
      },
      variables,
    );
  } catch (error) {
    // Only what the stored rows themselves cause fails the job (a row's metadata that cannot be read, a restore
    // that fails); a transient failure (the engine busy, out of resources) rejects the step instead.
    if (error instanceof CorruptRecordError || StatekError.isInstance(error) && error.isRetryable) throw error;
    throw new CorruptRecordError({ jobId: row.id, location: "workspace variables", cause: error });
  }
}

/** The workspace option for an allowed tool set (none: every tool that is not hidden). */
function allowedOf(allowed: readonly string[] | undefined): { allowedTools?: readonly string[] } {
  return allowed ? { allowedTools: allowed } : {};
}
