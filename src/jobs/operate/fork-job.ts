/**
 * @module
 * `statek.forkJob(id, { atTurn })`: a new job with the workspace and history another job had at the end of one of
 * its turns. Turn `n` is the `n`th model response with its execution (the numbers `statek show` and the job page
 * show); turn 0 is the end of warmup, before the first response. The fork's history is the original's up to the
 * first record of a later turn (its reply, a failed attempt at it, a post-processor's note on it), without the
 * status records that closed the original there; its variables are the original's as of that turn (the store
 * keeps each turn's changes). A fork copies nothing in flight — no journal, no pending response, no waits — so it
 * starts by asking its model. The original is only read.
 */
import { ForkTurnError } from "../../errors/fork-turn-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { Agent } from "../../agents/agent.ts";
import { checkAllowedTools } from "../../agents/agent.ts";
import { checkModelString, jobMetadata } from "../../agents/job-settings.ts";
import type { HistoryRow, JobFork, JobRow, JsonValue, Store } from "../../store/store.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import type { HistoryRecord } from "../history/history.ts";
import { decodeHistory, encodeHistoryRow } from "../history/history-codec.ts";
import { encodeInitialVariables, type SubmitScope } from "./submit-values.ts";
import { failedWarmupBlock } from "../step/warmup.ts";

/** What {@link Statek.forkJob} takes. */
export interface ForkJobOptions {
  /**
   * The turn whose end the fork starts from: 1 for the end of the first model response's execution, …, the job's
   * `turns` for its last (when that one has ended); 0 for the end of warmup.
   */
  atTurn: number;
  /** The agent that runs the fork (registered like `submitJob`'s). @default the original's agent */
  agent?: Agent;
  /** A `MODEL` string the fork asks instead (`"openai/gpt-5-mini"`), even when its agent has a model object. */
  model?: string;
  /** A user message added after the copied history: the fork's model reads it first. */
  message?: string;
  /** Variables bound over the copied ones, checked and stored as `submitJob`'s `vars` are. */
  vars?: Readonly<Record<string, unknown>>;
}

/** Kinds that end a job rather than a turn: a fork leaves them out when they close the copied history. */
const CLOSING_KINDS = new Set<string>(["status", "error-handler", "operator-action"]);

/** What the fork is built from: the agents of this process, and what its values may refer to. */
export interface ForkContext {
  /**
   * The agent of `role` as this process runs it; `undefined` when it has none (an operator's CLI): the fork is then
   * the original's role with its settings as they are, and its `vars` may refer to the process's bindings only.
   */
  agentFor(role: string): Agent | undefined;
  scope(agent: Agent | undefined): SubmitScope;
  id: string;
  now?: number;
}

/**
 * Reads job `id` and builds its fork at `options.atTurn` (see the module comment). Throws a `TypeError` for bad
 * options, {@link NoSuchJobError} for an unknown job and {@link ForkTurnError} for a turn that cannot be forked.
 */
export async function forkRows(store: Store, id: string, options: ForkJobOptions, context: ForkContext): Promise<JobFork> {
  const call = "forkJob";
  checkOptions(options, call);
  const { atTurn } = options;
  const row = await withStoreRetries(() => store.getJob(id));
  if (!row) throw new NoSuchJobError({ jobId: id });
  checkTurnEnded(row, atTurn);
  const rows = await withStoreRetries(() => store.getHistory(id));
  const copied = historyAt(decodeHistory(id, rows), atTurn);
  const agent = options.agent === undefined ? context.agentFor(row.role) : context.agentFor(options.agent.role) ?? options.agent;
  const now = context.now ?? Date.now();
  const metadata = forkMetadata(row, agent, options, call);
  const { rows: putVariables } = encodeInitialVariables(options.vars ?? {}, context.scope(agent), call);
  // The stored rows themselves are copied (history is dense from 0: the first records are the copied ones).
  const history: HistoryRow[] = rows.slice(0, copied.length);
  if (options.message !== undefined) history.push(encodeHistoryRow(history.length, "user-message", now, { text: options.message }));
  const state = forkState(row, copied, atTurn, agent, { sameAgent: options.agent === undefined, ownModel: options.model !== undefined }, call);
  // Its own job: no parent to settle, its own usage; the original's cell count, so cell numbers only grow.
  const job: JobFork["job"] = {
    id: context.id, role: agent?.role ?? row.role, status: "READY", params: row.params, metadata, parentId: null, createdAt: now, updatedAt: now,
    version: 0, turns: atTurn, pendingSeq: null, historyLength: history.length, exitStatus: null, error: null, usage: {}, state, wakeAt: null,
    cell: row.cell, forkedFrom: { jobId: id, turn: atTurn },
  };
  return { job, history, putVariables };
}

function checkOptions(options: ForkJobOptions, call: string): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`${call}: options must be an object with atTurn`);
  const { atTurn, model, message } = options;
  if (!Number.isSafeInteger(atTurn) || atTurn < 0) throw new TypeError(`${call}: atTurn must be a turn number (an integer, 0 or more), got ${String(atTurn)}`);
  if (model !== undefined && typeof model !== "string") throw new TypeError(`${call}: model must be a MODEL string such as "openai/gpt-5-mini"`);
  if (message !== undefined && typeof message !== "string") throw new TypeError(`${call}: message must be a string`);
}

/**
 * Whether turn `turn` of the job has ended, so that it can be forked: an earlier turn than its last; its last once
 * that response was executed (none is pending); turn 0 once warmup is over and the job went on to its model (a
 * `STARTED` job, or one that failed after its warmup, asking it). Written once for `forkJob` and the pages that
 * offer forks.
 */
export function turnEnded(row: Pick<JobRow, "turns" | "pendingSeq" | "status" | "error">, turn: number): boolean {
  if (turn < row.turns) return true;
  if (turn > row.turns || row.pendingSeq !== null) return false;
  if (turn > 0) return true;
  return row.status === "STARTED" || (row.status === "FAILED" && failedWarmupBlock(row.error ?? undefined) === undefined);
}

/** Refuses a turn the job has not reached, or one whose execution (or warmup) is still in flight. */
function checkTurnEnded(row: JobRow, turn: number): void {
  if (turnEnded(row, turn)) return;
  let reason: string;
  if (turn > row.turns) reason = `has ${row.turns} turn${row.turns === 1 ? "" : "s"}; there is no turn ${turn} to fork from`;
  else if (row.pendingSeq !== null) {
    reason = `has not ended turn ${turn}: its response is still being executed (the job is ${row.status}); fork an earlier turn, or this one once it has ended`;
  } else reason = `has not ended its warmup or did not go on to its model (the job is ${row.status}); turn 0 can be forked once it has`;
  throw new ForkTurnError({ jobId: row.id, turn, reason });
}

/** The records of the end of `turn`: up to the first of a later turn, without the records that closed the job there. */
export function historyAt(records: readonly HistoryRecord[], turn: number): HistoryRecord[] {
  const later = records.findIndex((record) => (turnOf(record) ?? -1) > turn);
  const copied = later === -1 ? [...records] : records.slice(0, later);
  while (copied.length > 1 && CLOSING_KINDS.has(copied.at(-1)!.kind)) copied.pop();
  return copied;
}

/** The turn a record of a model's reply belongs to (its reply, a failed attempt at it, a post-processor's note). */
function turnOf(record: HistoryRecord): number | undefined {
  switch (record.kind) {
    case "model-response":
    case "model-attempt":
    case "post-processed":
      return record.data.turn;
    default:
      return undefined;
  }
}

/** The original's settings, or the given agent's (the job's locale kept); a `model` replaces `MODEL`. */
function forkMetadata(row: JobRow, agent: Agent | undefined, options: ForkJobOptions, call: string): Record<string, JsonValue> {
  const metadata = options.agent === undefined || agent === undefined ? { ...row.metadata } : jobMetadata(agent, {}, call);
  if (options.agent !== undefined && row.metadata.LOCALE !== undefined) metadata.LOCALE = row.metadata.LOCALE;
  if (options.model !== undefined) metadata.MODEL = checkModelString(options.model, call);
  return metadata;
}

/**
 * The fork's runner state: warmup done, fresh turn and exception allowances from its turn on, the difficulty it
 * had reached by then, whether its `MODEL` is its own, and — with the same agent — the tools it may use and those
 * created at run time.
 */
function forkState(
  row: JobRow, copied: readonly HistoryRecord[], turn: number, agent: Agent | undefined, { sameAgent, ownModel }: { sameAgent: boolean; ownModel: boolean }, call: string,
): Record<string, JsonValue> {
  const submitted = copied.find((record) => record.kind === "submitted");
  const blocks = submitted?.kind === "submitted" ? submitted.data.warmup?.length ?? 0 : 0;
  const state: Record<string, JsonValue> = { warmupBlock: blocks, cycleStartTurn: turn };
  // A model the fork was given is asked even when its agent has a model object (`ask-model.ts`).
  if (ownModel || (sameAgent && row.state.ownModel === true)) state.ownModel = true;
  const difficulty = copied.findLast((record) => record.kind === "difficulty");
  if (difficulty?.kind === "difficulty") state.difficulty = difficulty.data.level;
  if (sameAgent) {
    const allowed = Array.isArray(row.state.allowedTools) ? row.state.allowedTools.filter((name) => typeof name === "string") : undefined;
    if (allowed) state.allowedTools = agent ? checkAllowedTools(agent, allowed, call) : allowed;
    if (row.state.createdTools !== undefined) state.createdTools = row.state.createdTools;
  }
  return state;
}
