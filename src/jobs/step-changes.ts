/**
 * @module
 * Everything one step changes — history records, job fields, variables — collected for a single commit.
 */
import type { HistoryRow, JobCommit, JobRow, JobStatus, JsonValue, VariableRow } from "../store/store.ts";
import type { WorkspaceReport } from "../workspace/workspace.ts";
import type { HistoryKind, HistoryRecordData } from "./history.ts";

/** Collects what a step appends and changes, for one commit. */
export class StepChanges {
  readonly history: HistoryRow[] = [];
  readonly job: NonNullable<JobCommit["job"]> = {};
  readonly put = new Map<string, VariableRow>();
  readonly deleted = new Set<string>();
  /** The job's status as this step leaves it. */
  status: JobStatus;
  #seq: number;

  constructor(row: JobRow) {
    this.#seq = row.historyLength;
    this.status = row.status;
  }

  /** Appends a history record; returns its `seq`. */
  append<K extends HistoryKind>(kind: K, data: HistoryRecordData[K]): number {
    const seq = this.#seq++;
    this.history.push({ seq, kind, at: Date.now(), data: data as unknown as JsonValue });
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

  /** Ends the job as `FAILED` with a readable reason. */
  fail(reason: string): void {
    this.job.error = reason;
    this.setStatus("FAILED", reason);
  }

  /** Ends the job as `DONE` with the encoded exit status. */
  finish(exitStatus: string): void {
    this.job.exitStatus = exitStatus;
    this.setStatus("DONE", undefined, exitStatus);
  }

  /** Takes in what a cell or formal call did. */
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

  /** The commit for the row this step read. */
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
