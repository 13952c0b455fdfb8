/**
 * @module
 * The type check of a model-written cell before it runs, in the job's `TYPE_CHECK` mode:
 * `refuse` does not run a cell with type errors — the model reads them as the cell's error, and the refusal
 * counts as an exception; `warn` prints them and runs the cell; `off` does not check. Each check that found
 * something is recorded (`type-check`), for the operator's timeline.
 *
 * A cell is checked when it first runs, never when it is replayed (a cell whose journal holds items passed its
 * check, or ran unchecked, the first time): a refused cell never ran at all, so it has no journal. Warmup code is
 * the application's and is not checked. What the check is made of: the job's declarations (its tools, context
 * and classes, the tools it made, its shared memory's tools), its stored variables, the shared-memory names in
 * scope (as `any`: another job may change a value between the check and the read), and the cells that ran
 * before — warmup blocks, earlier replies' code and `ts_cli` calls, this reply's parts before this one — minus
 * those that were refused.
 */
import { stripOuterFence } from "../../agents/chat-styles/fences.ts";
import { TS_CLI } from "../../agents/chat-styles/ts-cli-tool.ts";
import { typeCheckModeOf, type TypeCheckMode } from "../../typecheck/type-check-mode.ts";
import { formatTypeErrors } from "../../typecheck/format-type-errors.ts";
import type { CheckVerdict } from "../../typecheck/type-checker.ts";
import type { ConsoleEntry } from "../../workspace/console-buffer.ts";
import type { Workspace, WorkspaceReport } from "../../workspace/workspace.ts";
import type { HistoryRecord, TypeCheckRecord } from "../history/history.ts";
import type { DurableCellContext } from "./durable-cell.ts";
import { jobAllowedTools, jobTools } from "../../agents/job-tools.ts";

/** What the check decided for a cell about to run. */
export interface CellAdmission {
  /** The cell does not run: what it reports instead (its type errors, as an exception). */
  refused?: WorkspaceReport;
  /** Printed before the cell's own output (`warn`). */
  warnings?: ConsoleEntry[];
}

/** Errors kept in a `type-check` record at most. */
const MAX_RECORDED_ERRORS = 50;

/**
 * Checks the cell `code` of part `part` before it runs, unless the part is warmup code or a replay
 * (`replaying`), or the job's mode is `off`.
 */
export async function admitCell(
  context: DurableCellContext, workspace: Workspace, code: string, part: string, replaying: boolean,
): Promise<CellAdmission> {
  const { env, row, changes } = context;
  if (part === "warmup" || replaying || !env.typeChecker) return {};
  const mode = modeOf(row.metadata);
  if (mode === "off") return {};
  // An empty cell reports that itself when it runs (a cell that does not parse is left to the cell compiler too).
  if (!code.trim()) return {};
  const agent = env.agentFor(row.role);
  // The tools the workspace has: the agent's, those the job made (createTool), its shared memory's.
  const state = { ...row.state, ...changes.job.state };
  const tools = jobTools(agent.registry, state);
  const memory = context.memory;
  const allowed = jobAllowedTools(agent.allowedTools, state, tools.created);
  const started = performance.now();
  const verdict = await env.typeChecker.checkCell({
    owner: agent.registry,
    scopeKey: `${allowed ? allowed.join(",") : "*"}|${env.exposed.version}|${JSON.stringify(state.createdTools ?? [])}|${memory ? memory.access : "-"}`,
    scope: () => {
      const bindings = new Map(env.bindings);
      for (const [name, value] of Object.entries(agent.context)) bindings.set(name, value);
      return {
        tools: memory ? [...tools.all, ...memory.tools()] : tools.all,
        permits: (tool) => !tool.hidden && (allowed === undefined || allowed.includes(tool.name)),
        context: agent.context,
        bindings,
        exposed: env.exposed,
      };
    },
    variables: workspace.storedVariables(),
    ...(memory ? { shared: memory.names().map(([name]) => name) } : {}),
    cells: earlierCells([...context.history, ...changes.records], part),
    cell: code,
  });
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  return decide(context, verdict, mode, part, durationMs);
}

function decide(context: DurableCellContext, verdict: CheckVerdict, mode: Exclude<TypeCheckMode, "off">, part: string, durationMs: number): CellAdmission {
  const { changes } = context;
  if (verdict.kind === "unchecked") {
    if (!verdict.syntax) changes.append("type-check", { part, outcome: "unchecked", errors: [], reason: verdict.reason, durationMs });
    return {};
  }
  if (verdict.errors.length === 0) return {};
  const record: TypeCheckRecord = {
    part,
    outcome: mode === "refuse" ? "refused" : "warned",
    errors: verdict.errors.slice(0, MAX_RECORDED_ERRORS).map(({ line, column, code, message }) => ({ line, column, code, message })),
    ...(verdict.errors.length > MAX_RECORDED_ERRORS ? { more: verdict.errors.length - MAX_RECORDED_ERRORS } : {}),
    durationMs,
  };
  changes.append("type-check", record);
  const text = formatTypeErrors(verdict.errors);
  if (mode === "warn") {
    return { warnings: [{ stream: "notice", text: `the cell has type errors; it runs anyway (TYPE_CHECK is "warn"):\n${text}` }] };
  }
  return {
    refused: {
      console: [
        { stream: "error", text },
        { stream: "notice", text: "the cell was not run: it has type errors (every cell is type-checked before it runs)" },
      ],
      toolCalls: [],
      crossings: [],
      put: [],
      deleted: [],
      errorHandlers: [],
      error: text,
    },
  };
}

/** The job's mode; a value that cannot be read (it was checked at submit) is the default. */
function modeOf(metadata: Readonly<Record<string, unknown>>): TypeCheckMode {
  try {
    return typeCheckModeOf(metadata);
  } catch {
    return "refuse";
  }
}

/**
 * The TypeScript source of the cells that ran before part `part` of the reply being executed (the last
 * `model-response` of `records`), earliest first: warmup blocks, every reply's `ts_cli` calls and then its cell,
 * except those a `type-check` record says were refused.
 */
export function earlierCells(records: readonly HistoryRecord[], part: string): string[] {
  const cells: Array<{ key: string; code: string }> = [];
  let response = -1;
  for (const record of records) {
    if (record.kind === "warmup") cells.push({ key: `warmup:${record.seq}`, code: record.data.code });
    else if (record.kind === "model-response") {
      response = record.seq;
      for (const call of record.data.toolCalls) {
        if (call.name === TS_CLI && typeof call.args.code === "string") cells.push({ key: `${response}:ts:${call.id}`, code: stripOuterFence(call.args.code) });
      }
      if (record.data.code) cells.push({ key: `${response}:cell`, code: record.data.code });
    } else if (record.kind === "type-check" && record.data.outcome === "refused") {
      const refused = cells.findIndex((cell) => cell.key === `${response}:${record.data.part}`);
      if (refused >= 0) cells.splice(refused, 1);
    }
  }
  // The reply being executed: its parts from this one on have not run.
  const current = cells.findIndex((cell) => cell.key === `${response}:${part}`);
  if (current >= 0) cells.length = current;
  return cells.map((cell) => cell.code);
}
