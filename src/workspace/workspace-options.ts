/**
 * @module
 * What a workspace (`workspace.ts`) is opened with, what a cell may be given, and what a cell or formal tool call
 * reports back to the job runner.
 */
import type { Context } from "@opentelemetry/api";
import type { VariableRow } from "../store/store.ts";
import type { ToolCallRecord } from "../tools/call-tool.ts";
import type { ChildJobStarter } from "../tools/child-job.ts";
import type { Tool, ToolAgent } from "../tools/tool.ts";
import type { JobChange } from "../tools/job-request.ts";
import type { CellStart, FutureWaits, TimerSource } from "./cell-host.ts";
import type { JournalItem } from "./cell-journal.ts";
import type { ConsoleEntry } from "./console-buffer.ts";
import type { RegisteredErrorHandler } from "./cell-effects.ts";
import type { CellLimit, Executor } from "./executor.ts";
import type { WorkspaceLimits } from "./limits.ts";
import type { Crossing } from "./membrane/crossing-journal.ts";
import type { ExposedClasses } from "./membrane/host-references.ts";

/** What a workspace is built from. */
export interface WorkspaceOptions {
  executor: Executor;
  limits?: Partial<WorkspaceLimits>;
  /** The job; its metadata reaches tools as `ctx.job.metadata`, its difficulty as `ctx.job.difficulty`. */
  job: { id: string; role: string; metadata?: Readonly<Record<string, unknown>>; difficulty?: "L" | "M" | "H" };
  /** The agent, for `ctx.agent`. @default `{ role: job.role, metadata: job.metadata }` */
  agent?: ToolAgent;
  /** The job's tools, hidden ones included; all are in scope by name, the permitted ones may be called. */
  tools: readonly Tool[];
  /** Names of the tools agent code may call. @default every tool in `tools` */
  allowedTools?: readonly string[];
  /** Hidden tools may be called (warmup code marked hidden). @default false */
  allowHidden?: boolean;
  /** Values in scope by name that are not workspace variables (the agent's context). */
  globals: Readonly<Record<string, unknown>>;
  /** Host objects that persist by name (`Statek.open({ bindings })` and the agent's context). */
  bindings: ReadonlyMap<string, unknown>;
  /** Classes whose objects persist by id and whose members follow a policy (`statek.expose`). */
  exposed?: ExposedClasses;
  /** The clock agent code reads. @default Date.now */
  clock?: () => number;
  /** The random source agent code reads. @default Math.random */
  random?: () => number;
  /** The monotonic time agent code reads (`performance.now()`). @default the host's `performance.now` */
  monotonic?: () => number;
  /** The timer source behind agent code's `setTimeout`/`setInterval`. @default the host's timers */
  timers?: TimerSource;
  /** The job's cell counter when the workspace opens (idempotency keys carry it). @default 0 */
  cell?: number;
  /** Durable futures (`sleep`, `waitForMessage`, …): without them, agent code that waits on one gets an error. */
  futures?: FutureWaits;
  /** What `ctx.startJob` does (the job runner's): without it, tools cannot start child jobs here. */
  startJob?: ChildJobStarter;
  /**
   * The job's shared memory: its names are in scope (read-only, shadowed by any variable, context value or tool of
   * the same name) and their values are read when used, each read a journaled crossing.
   */
  memory?: WorkspaceMemory;
  signal?: AbortSignal;
  /**
   * `full` encodes every variable after every cell, the reference the incremental collect (only what the cell
   * could have changed) is tested against; both store the same rows. @default "incremental"
   */
  collect?: "incremental" | "full";
}


/** Shared memory as a workspace reads it. */
export interface WorkspaceMemory {
  /** The names in scope now, with their categories. */
  names(): ReadonlyArray<readonly [name: string, category: string]>;
  /** The value of a name, or `undefined` when memory no longer has it. */
  value(name: string): { value: unknown } | undefined;
}

/** Options of {@link Workspace.runCell}. */
export interface WorkspaceCellOptions {
  /** This cell may call hidden tools (warmup code marked hidden). @default false */
  allowHiddenTools?: boolean;
  /**
   * The cell's durable journal: where it goes (`sink`), and the journal of an earlier attempt to replay
   * (a resumed cell). Without it, the cell is journaled in memory only (enough to replay it after its VM is lost).
   */
  journal?: CellStart;
  /** The job's cell counter for this cell (idempotency keys carry it). */
  cell?: number;
  /** The trace context the cell's tool-call spans go under (its cell span). */
  trace?: Context;
}

/** What one cell or formal call did. */
export interface WorkspaceReport {
  console: ConsoleEntry[];
  toolCalls: ToolCallRecord[];
  /** Every crossing the cell made, in order, in the form the durable journal keeps. */
  crossings: Crossing[];
  /** `<ErrorName>: <message>` when the cell failed. */
  error?: string;
  /** The limit that ended the cell, when one did. */
  limit?: CellLimit;
  /** Set when agent code called `exit`: the status, encoded for the store. */
  exitStatus?: string;
  /** Set (with `exitStatus`) when agent code called `failTask(reason)`: the reason its job fails with. */
  taskFailure?: string;
  /** Variables to write (changed or new). */
  put: VariableRow[];
  /** Variables the code deleted. */
  deleted: string[];
  /** Error handlers the tools called registered, in order (tools/error-handler.ts). */
  errorHandlers: RegisteredErrorHandler[];
  /** Changes framework tools asked of the job, in order (`tools/job-request.ts`): the step applies them. */
  jobChanges?: JobChange[];
  /** How many variables the end of the cell encoded (the others kept their stored text), when it ran. */
  encodedVariables?: number;
  /** The cell stopped where it waits only for durable futures; its variables were not collected. */
  suspended?: boolean;
  /** The cell's journal (what its guest was answered), as far as it got. */
  journal?: readonly JournalItem[];
}
