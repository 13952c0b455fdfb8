/**
 * @module
 * The job view: what `getJob`, `step` and `runJob` return — status, console, decoded
 * variables, history, usage, the error of a `FAILED` job and the value given to `exit`.
 */
import type { ForkOrigin, HistoryRow, JobRow, JobStatus, JsonValue, VariableRow } from "../../store/store.ts";
import { decodeValue, decodeVariables } from "../../workspace/decode-variables.ts";
import type { HostReferences } from "../../workspace/membrane/host-references.ts";
import type { HistoryRecord } from "./history.ts";
import { decodeHistoryForView } from "./history-codec.ts";
import { jobDifficulty, type Difficulty } from "../../agents/difficulty.ts";
import type { MemoryAccess, MemoryItem } from "../../agents/memory.ts";
import { errorMessage } from "../../errors/error-text.ts";

/** Accumulated model usage of a job. */
export interface JobUsage {
  inputTokens: number;
  /** Input tokens served from the provider's cache (included in `inputTokens`). */
  cachedInputTokens: number;
  outputTokens: number;
  /** Cost in USD from the pricing table; `null` when no turn's model has a price. */
  cost: number | null;
  /**
   * Model calls (replies and failed attempts) whose usage the provider did not report: they are not in the
   * counts or the cost above. Present only when there are any.
   */
  unknownCalls?: number;
}

/** A job as the application sees it. */
export interface JobView {
  id: string;
  role: string;
  status: JobStatus;
  /** The job that started this one (`ctx.startJob`), else `null`. */
  parentId: string | null;
  /** The job and turn this one was forked from (`statek.forkJob`); absent for a job that is no fork. */
  forkedFrom?: ForkOrigin;
  /** The console entries, in order. */
  console: string[];
  /** Workspace variables by name, decoded (functions as `StoredDefinition`, lost values as `Tombstone`). */
  variables: Record<string, unknown>;
  /** The durable history records. */
  history: HistoryRecord[];
  usage: JobUsage;
  /** A readable reason when `FAILED` (or the reason given when `CANCELLED`), else `null`. */
  error: string | null;
  /** The value given to `exit`, or `undefined`. */
  exitStatus: unknown;
  /** Number of model turns taken. */
  turns: number;
  params: Record<string, JsonValue>;
  /**
   * The job's difficulty (`L` < `M` < `H`): its `DEFAULT_DIFFICULTY` (else `M`), raised by `panic()` and by harder
   * examples shown. It picks the model of a `MODEL` mapping and the prompt sections shown.
   */
  difficulty: Difficulty;
  /**
   * The shared memory the job is bound to (`submitJob({ memory })`): its context, its access, and the entries it
   * reads now (merged over its context and the broader ones); absent for a job bound to none.
   */
  memory?: { specifiers: string[]; access: MemoryAccess; entries: MemoryItem[] };
  createdAt: Date;
  updatedAt: Date;
}

/** A job in a list (no variables or history). */
export interface JobSummary {
  id: string;
  role: string;
  status: JobStatus;
  /** The job that started this one (`ctx.startJob`), else `null`. */
  parentId: string | null;
  /** The job and turn this one was forked from (`statek.forkJob`); absent for a job that is no fork. */
  forkedFrom?: ForkOrigin;
  turns: number;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Builds a view from stored rows. */
export function toJobView(row: JobRow, variables: VariableRow[], history: HistoryRow[], references: HostReferences): JobView {
  const records = decodeHistoryForView(row.id, history);
  return {
    id: row.id,
    role: row.role,
    status: row.status,
    parentId: row.parentId,
    ...forkOf(row),
    console: records.flatMap((record) => {
      if (record.kind !== "console") return [];
      try {
        return [record.data.text];
      } catch (error) {
        return [`[history[${record.seq}] cannot be read: ${errorMessage(error)}]`];
      }
    }),
    variables: decodeVariables(variables, references),
    history: records,
    usage: {
      inputTokens: Number(row.usage.inputTokens ?? 0),
      cachedInputTokens: Number(row.usage.cachedInputTokens ?? 0),
      outputTokens: Number(row.usage.outputTokens ?? 0),
      cost: typeof row.usage.cost === "number" ? row.usage.cost : null,
      ...(typeof row.usage.unknownCalls === "number" && row.usage.unknownCalls > 0 ? { unknownCalls: row.usage.unknownCalls } : {}),
    },
    error: row.error,
    exitStatus: decodeValue(row.exitStatus, references),
    turns: row.turns,
    params: row.params,
    difficulty: difficultyOf(row),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

/** `{ forkedFrom }` for a fork, else nothing; an origin that cannot be read (a corrupt row) is left out. */
function forkOf(row: JobRow): { forkedFrom?: ForkOrigin } {
  try {
    return row.forkedFrom === undefined ? {} : { forkedFrom: { ...row.forkedFrom } };
  } catch {
    return {};
  }
}

/** The job's difficulty; a state that cannot be read (a corrupt row) reads as its starting level. */
function difficultyOf(row: JobRow): Difficulty {
  let state: Record<string, JsonValue> = {};
  try {
    state = row.state;
  } catch {
    // The view still shows the rest of the job.
  }
  return jobDifficulty(state, row.metadata);
}

/** Builds a list entry from a stored row. */
export function toJobSummary(row: JobRow): JobSummary {
  return {
    id: row.id,
    role: row.role,
    status: row.status,
    parentId: row.parentId,
    ...forkOf(row),
    turns: row.turns,
    error: row.error,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}
