/**
 * @module
 * Everything one step changes — history records, job fields, variables, registered error handlers —
 * collected for a single commit.
 *
 * {@link StepChanges.fail} is the one place a job becomes `FAILED`. It takes the job's error handlers off the
 * job (each runs at most once) and leaves them in {@link StepChanges.failure}; whoever commits the changes
 * runs them first with `runErrorHandlers` (`error-handlers.ts`), so every failure path runs them.
 */
import { JobCancelledError } from "../../errors/job-cancelled-error.ts";
import { JobFailedError } from "../../errors/job-failed-error.ts";
import type { HistoryRow, JobCommit, JobRow, JobStatus, JsonValue, VariableRow } from "../../store/store.ts";
import type { RegisteredErrorHandler, WorkspaceReport } from "../../workspace/workspace.ts";
import type { HistoryKind, HistoryRecord, HistoryRecordData } from "../history/history.ts";
import { encodeHistoryRow, historyRecord } from "../history/history-codec.ts";
import { stepEvents } from "../events/outbox-events.ts";
import type { DialogMessage } from "./dialog.ts";
import { decodeCreatedTool, type JobChange } from "../../tools/job-request.ts";
import { higherDifficulty, jobDifficulty } from "../../agents/difficulty.ts";

/** A job's failure, with the error handlers it must run before the step commits. */
export interface StepFailure {
  reason: string;
  /** What error handlers receive as `error`. */
  error: unknown;
  /** The handlers registered on the job, in registration order. */
  handlers: RegisteredErrorHandler[];
}

// The job's registered error handlers live in `state.errorHandlers`; anything malformed there is not ours.
function registeredHandlers(state: Record<string, JsonValue>): RegisteredErrorHandler[] {
  const list = state.errorHandlers;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    const item = entry as Record<string, JsonValue> | null;
    return item && typeof item.name === "string" && typeof item.context === "string" ? [{ name: item.name, context: item.context }] : [];
  });
}

/** The value `read` gives, or `undefined` when it throws (a corrupt field of the row). */
function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Collects what a step appends and changes, for one commit. */
export class StepChanges {
  /** The records appended, as stored (each with its kind's version). */
  readonly history: HistoryRow[] = [];
  /** The same records, as the runner reads them. */
  readonly records: HistoryRecord[] = [];
  readonly job: NonNullable<JobCommit["job"]> = {};
  readonly put = new Map<string, VariableRow>();
  readonly deleted = new Set<string>();
  /** The job's status as this step leaves it. */
  status: JobStatus;
  /** Set by {@link fail}: the failure and the handlers to run before commit. */
  failure: StepFailure | undefined;
  #seq: number;
  readonly #row: JobRow;
  readonly #handlers: RegisteredErrorHandler[];
  /** The reason a cell of this step gave `failTask(reason)`: its exit fails the job. */
  #taskFailure: string | undefined;

  /** A row whose `status` or `state` cannot be read is accepted: the step can still fail it. */
  constructor(row: JobRow) {
    this.#row = row;
    this.#seq = row.historyLength;
    this.status = readable(() => row.status) ?? "STARTED";
    this.#handlers = registeredHandlers(readable(() => row.state) ?? {});
  }

  /** Registers an error handler on the job (a tool's, or deferred until a future resolved). */
  registerErrorHandler(handler: RegisteredErrorHandler): void {
    this.#handlers.push(handler);
    this.#writeHandlers();
  }

  // A state that cannot be read is replaced (its counters are lost with it; the commit repairs the row).
  #writeHandlers(): void {
    this.job.state = { ...readable(() => this.#row.state), ...this.job.state, errorHandlers: this.#handlers.map((entry) => ({ ...entry })) };
  }

  /** Appends a history record; returns its `seq`. */
  append<K extends HistoryKind>(kind: K, data: HistoryRecordData[K]): number {
    const seq = this.#seq++;
    const at = Date.now();
    this.history.push(encodeHistoryRow(seq, kind, at, data));
    this.records.push(historyRecord(seq, kind, at, data));
    return seq;
  }

  /** Moves the job to `status`, with a history record. */
  setStatus(status: JobStatus, reason?: string, exitStatus?: string): void {
    this.status = status;
    this.job.status = status;
    const data: HistoryRecordData["status"] = { status };
    if (reason !== undefined) data.reason = reason;
    if (exitStatus !== undefined) data.exitStatus = exitStatus;
    this.append("status", data);
  }

  /**
   * Ends the job as `FAILED` with a readable reason; `error` is what its error handlers receive (default: a
   * `JobFailedError` with the reason). The handlers are taken off the job into {@link failure}.
   */
  fail(reason: string, error?: unknown): void {
    this.job.error = reason;
    this.setStatus("FAILED", reason);
    this.#takeHandlers(reason, error ?? new JobFailedError({ jobId: this.#row.id, reason }));
  }

  /**
   * Ends the job as `CANCELLED` with the reason given; its error handlers receive a `JobCancelledError` and are
   * taken off the job into {@link failure}, as for {@link fail}. Its waits are cancelled with the commit.
   */
  cancel(reason: string): void {
    this.job.error = reason;
    this.job.wakeAt = null;
    this.setStatus("CANCELLED", reason);
    this.cancelFutures = true;
    this.#takeHandlers(reason, new JobCancelledError({ jobId: this.#row.id, reason }));
  }

  #takeHandlers(reason: string, error: unknown): void {
    const handlers = this.#handlers.splice(0);
    if (handlers.length) this.#writeHandlers();
    this.failure = {
      reason,
      error,
      handlers: [...(this.failure?.handlers ?? []), ...handlers],
    };
  }

  /** Ends the job as `DONE` with the encoded exit status — or `FAILED`, when its code called `failTask(reason)`. */
  finish(exitStatus: string): void {
    if (this.#taskFailure !== undefined) return this.fail(this.#taskFailure);
    this.job.exitStatus = exitStatus;
    this.setStatus("DONE", undefined, exitStatus);
  }

  /**
   * Moves this step's records after `count` records others appended to the job meanwhile (the step's commit is
   * rebased over them: `rebase-commit.ts`): their `seq`s, and the pending reply's, shift by `count`. A model
   * reply of this step is marked as not having seen the user messages `unseen` (`seq`s of those records).
   */
  shiftAfter(count: number, unseen: readonly number[]): void {
    if (count === 0) return;
    const first = this.#seq - this.records.length;
    this.records.forEach((record, index) => {
      const seq = record.seq + count;
      if (record.kind === "model-response" && unseen.length) {
        const data = { ...record.data, unseen: [...(record.data.unseen ?? []), ...unseen] };
        this.records[index] = { ...record, seq, data };
        this.history[index] = encodeHistoryRow(seq, "model-response", record.at, data);
      } else {
        this.records[index] = { ...record, seq };
        this.history[index] = { ...this.history[index]!, seq };
      }
    });
    const pending = this.job.pendingSeq;
    if (typeof pending === "number" && pending >= first) this.job.pendingSeq = pending + count;
    this.#seq += count;
  }

  /** Takes in what a cell or formal call did. */
  absorb(report: WorkspaceReport): void {
    if (report.taskFailure !== undefined) this.#taskFailure = report.taskFailure;
    for (const call of report.toolCalls) this.append("tool-call", call);
    for (const handler of report.errorHandlers ?? []) this.registerErrorHandler(handler);
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
    this.applyJobChanges(report.jobChanges ?? []);
  }

  /**
   * What framework tools asked of the job (`tools/job-request.ts`): a raised difficulty and tools made go into
   * its state, messages to the user into its history (sent after the commit). An exit is the report's.
   */
  applyJobChanges(changes: readonly JobChange[]): void {
    for (const change of changes) {
      const state = { ...readable(() => this.#row.state), ...this.job.state };
      if (change.type === "difficulty") {
        const current = jobDifficulty(state, readable(() => this.#row.metadata) ?? {});
        const level = higherDifficulty(current, change.level);
        if (level !== current) {
          this.job.state = { ...state, difficulty: level };
          this.append("difficulty", { level, from: current });
        }
      } else if (change.type === "tool") {
        const made = Array.isArray(state.createdTools) ? state.createdTools.filter((entry) => decodeCreatedTool(entry) !== undefined) : [];
        if (made.some((entry) => (entry as { name?: unknown }).name === change.spec.name)) continue;
        this.job.state = { ...state, createdTools: [...made, { ...change.spec, args: change.spec.args as JsonValue[] }] };
      } else if (change.type === "message") {
        const message: DialogMessage = { body: change.body, ...(change.media === undefined ? {} : { media: change.media }) };
        this.append("dialog", { ...message });
        this.messages.push(message);
      }
    }
  }

  /** The cell's journal is done with (its cell ended): the commit deletes it. */
  clearJournal = false;
  /** Dialog messages this step recorded for the user: sent to `onMessage` once its commit is durable. */
  readonly messages: DialogMessage[] = [];
  /** The job waits for nothing any more (it was cancelled): the commit cancels its waiting futures. */
  cancelFutures = false;
  /** Futures a suspending step waits for: if one settled meanwhile, the commit makes the job runnable at once. */
  wakeIfSettled: string[] | undefined;
  /** Futures the commit settles with its changes (a child's end settles its parent's wait: `child-jobs.ts`). */
  readonly settleFutures: NonNullable<JobCommit["settleFutures"]> = [];
  /**
   * The failures in a row that open the job's agent's breaker: when set, a commit that ends the job `DONE` or
   * `FAILED` counts it for the breaker (`JobCommit.agentOutcome`).
   */
  breakerFailures: number | undefined;
  /** The job failed in its warmup: that opens its agent's breaker at once. */
  warmupFailed = false;

  #agentOutcome(from: JobStatus): JobCommit["agentOutcome"] {
    if (this.breakerFailures === undefined || this.status === from) return undefined;
    if (this.status === "DONE") return { failed: false };
    if (this.status !== "FAILED") return undefined;
    return { failed: true, reason: this.failure?.reason ?? "failed", threshold: this.breakerFailures, opensAtOnce: this.warmupFailed };
  }

  /** The commit for the row this step read, with its events (`outbox-events.ts`) for `statek.events()`. */
  commit(row: JobRow): JobCommit {
    const from = readable(() => row.status) ?? this.status;
    const agentOutcome = this.#agentOutcome(from);
    return {
      id: row.id,
      expectedVersion: row.version,
      job: this.job,
      putVariables: [...this.put.values()],
      deleteVariables: [...this.deleted],
      appendHistory: this.history,
      ...(this.clearJournal ? { clearJournal: true } : {}),
      ...(this.cancelFutures ? { cancelFutures: true } : {}),
      ...(this.wakeIfSettled ? { wakeIfSettled: this.wakeIfSettled } : {}),
      ...(this.settleFutures.length ? { settleFutures: this.settleFutures } : {}),
      events: stepEvents(this.records, from, this.status, row.version + 1),
      ...(agentOutcome ? { agentOutcome } : {}),
    };
  }
}
