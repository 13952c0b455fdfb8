/**
 * @module
 * The rows of a new job — its row in `READY`, its initial variables, its opening history (`submitted`, and the
 * user's message) — as `statek.submitJob` and `ctx.startJob` (a child job) both create them.
 */
import type { TraceCarrier } from "../../telemetry/trace-carrier.ts";
import type { JobRow, JsonValue, NewJobRows } from "../../store/store.ts";
import type { Agent } from "../../agents/agent.ts";
import { checkAllowedTools } from "../../agents/agent.ts";
import type { SubmittedRecord } from "../history/history.ts";
import { encodeHistoryRow } from "../history/history-codec.ts";
import { jobMetadata, type JobMetadata, type JobSettings } from "../../agents/job-settings.ts";
import { encodeInitialVariables, toJsonParams, type SubmitScope } from "./submit-values.ts";
import { numberWarmupCalls, parseWarmup, type WarmupSource } from "../../agents/warmup-blocks.ts";
import { parseLocale } from "../../agents/locale.ts";
import { memorySpecifiers, type MemoryAccess, type MemoryBinding } from "../../agents/memory.ts";

/** What a new job is made of (the options of `submitJob`). */
export interface NewJobOptions extends JobSettings {
  vars?: Readonly<Record<string, unknown>>;
  params?: Readonly<Record<string, unknown>>;
  message?: string;
  warmup?: WarmupSource;
  allowedTools?: readonly string[];
  metadata?: JobMetadata;
  /** The job's locale (`"pl-PL"`): kept as its `LOCALE` setting. */
  locale?: string;
  /** The shared memory the job is bound to: its context's specifiers. */
  memory?: readonly string[];
  /** What the job may do with it. @default "read" */
  memoryAccess?: MemoryAccess;
  /** Variables encoded already (an agent event, encoded when it was pushed), after those of `vars`. */
  encodedVars?: ReadonlyArray<{ name: string; blob: string; type: string }>;
}

/** The job's memory binding from its options; a `TypeError` names a bad one. */
function memoryBindingOf(options: NewJobOptions, call: string): MemoryBinding | undefined {
  const { memory, memoryAccess } = options;
  if (memoryAccess !== undefined && memoryAccess !== "read" && memoryAccess !== "write") {
    throw new TypeError(`${call}: memoryAccess must be "read" or "write", got ${JSON.stringify(memoryAccess)}`);
  }
  if (memory === undefined) {
    if (memoryAccess !== undefined) throw new TypeError(`${call}: memoryAccess needs memory (the specifiers of the job's context, such as ["user:42"])`);
    return undefined;
  }
  return { specifiers: memorySpecifiers(memory, call), access: memoryAccess ?? "read" };
}

export type { NewJobRows };

/**
 * Builds a new job of `agent`. Throws a `TypeError` (starting with `call`) for variables or parameters that
 * cannot be stored and for bad settings.
 */
export function newJobRows(agent: Agent, options: NewJobOptions, scope: SubmitScope, identity: { id: string; parentId: string | null; call: string; now?: number; trace?: TraceCarrier }): NewJobRows {
  const { call } = identity;
  const metadata = jobMetadata(agent, options, call);
  if (options.locale !== undefined) {
    try {
      metadata.LOCALE = parseLocale(options.locale).tag;
    } catch (error) {
      throw new TypeError(`${call}: ${(error as Error).message}`);
    }
  }
  const { rows, types } = encodeInitialVariables(options.vars ?? {}, scope, call);
  for (const encoded of options.encodedVars ?? []) {
    rows.push({ name: encoded.name, blob: encoded.blob, position: rows.length });
    types.push({ name: encoded.name, type: encoded.type });
  }
  const params = toJsonParams(options.params ?? {});
  const state: Record<string, JsonValue> = {};
  if (options.allowedTools !== undefined) state.allowedTools = checkAllowedTools(agent, options.allowedTools, call);
  const now = identity.now ?? Date.now();
  const job: JobRow = {
    id: identity.id,
    role: agent.role,
    status: "READY",
    params,
    metadata,
    parentId: identity.parentId,
    createdAt: now,
    updatedAt: now,
    version: 0,
    turns: 0,
    pendingSeq: null,
    historyLength: 0,
    exitStatus: null,
    error: null,
    usage: {},
    state,
    wakeAt: null,
    cell: 0,
  };
  const warmup = numberWarmupCalls([...parseWarmup(options.warmup, `${call}: warmup`), ...agent.warmup]);
  const memory = memoryBindingOf(options, call);
  const submitted: SubmittedRecord = {
    ...(memory ? { memory } : {}),
    vars: types, params, ...(warmup.length ? { warmup: warmup.map(({ toolCalls, ...block }) => ({ ...block, ...(toolCalls ? { toolCalls: toolCalls.map((entry) => ({ id: entry.id!, name: entry.name, args: entry.args })) } : {}) })) } : {}), ...(identity.trace ? { trace: identity.trace } : {}),
  };
  const history = [encodeHistoryRow(0, "submitted", now, submitted)];
  if (options.message !== undefined) history.push(encodeHistoryRow(1, "user-message", now, { text: String(options.message) }));
  job.historyLength = history.length;
  return { job, variables: rows, history };
}
