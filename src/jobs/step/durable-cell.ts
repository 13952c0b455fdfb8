/**
 * @module
 * Running one cell of a job durably: the journal of the job's current cell number is read; a
 * journal left by an earlier attempt (a crash, a suspension) is replayed; new items are written through the
 * step's lease; the cell's waits are the job's durable futures. A cell that waits only for futures suspends:
 * the job becomes `SUSPENDED` (also in warmup: `WARMING_UP` jobs are always runnable) and its `wakeAt` is its
 * earliest timer. A
 * cell that ends finishes its cell number: the journal is cleared and the next cell gets the next number.
 *
 * One model response may run several parts — formal tool calls, `ts_cli` cells, its own cell — so journal
 * items carry the part they belong to (`p`), and each part replays only its own.
 */
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { startCellSpan } from "../../telemetry/spans.ts";
import { endSpan } from "../../telemetry/tracer.ts";
import { JobFutures, type FutureStore } from "../../durable/job-futures.ts";
import type { StepEnvironment } from "./step-environment.ts";
import { settleParentWait } from "./child-jobs.ts";
import { recordSettledWaits, watchWaits } from "./settled-waits.ts";
import type { JobRow, JsonValue } from "../../store/store.ts";
import { decodeJournalItem, type JournalItem } from "../../workspace/cell-journal.ts";
import type { JournalSink } from "../../workspace/cell-host.ts";
import type { Workspace, WorkspaceCellOptions, WorkspaceReport } from "../../workspace/workspace.ts";
import type { HistoryRecord } from "../history/history.ts";
import type { StepChanges } from "./step-changes.ts";
import { retried, withStoreRetries } from "../../store/store-retries.ts";
import type { StepTransaction } from "./step-transaction.ts";
import type { JobMemory } from "../memory/job-memory.ts";
import { admitCell } from "./typed-cell.ts";

/** What a durable cell needs from its step. */
export interface DurableCellContext {
  env: Pick<StepEnvironment, "signal" | "signals" | "store" | "bindings" | "exposed" | "agentFor" | "trace" | "typeChecker">;
  row: JobRow;
  tx: StepTransaction;
  changes: StepChanges;
  /** The job's history as the step read it (the inbox's messages are in it). */
  history: readonly HistoryRecord[];
  /** The job's shared memory, when it is bound to one. */
  memory?: JobMemory | undefined;
}

/** The journal items of the job's current cell number, by part (`undefined`: the response's own cell). */
export async function readJournal(context: DurableCellContext): Promise<Map<string, JournalItem[]>> {
  const { row, tx } = context;
  const parts = new Map<string, JournalItem[]>();
  // The step before, under this same lease, ended its cell and cleared the journal: there is nothing to replay.
  if (tx.journalKnownEmpty) return parts;
  const journal = await retried(context.env, () => tx.store.getJournal(row.id));
  if (!journal || journal.cell !== row.cell) return parts;
  for (const entry of journal.entries) {
    const data = entry.data as { p?: unknown } | null;
    let item: JournalItem;
    try {
      item = decodeJournalItem(data);
    } catch (cause) {
      throw new CorruptRecordError({ jobId: row.id, location: `journal[${entry.index}]`, cause });
    }
    const part = typeof data?.p === "string" ? data.p : "";
    let items = parts.get(part);
    if (!items) parts.set(part, (items = []));
    items.push(item);
  }
  return parts;
}

/** A sink that tags the items of one part. */
function partSink(tx: StepTransaction, part: string): JournalSink {
  return {
    append: (items) => tx.appendPart(items, part),
    flush: () => tx.flush(),
  };
}

/**
 * The runner state the durable cells keep in the job's `state` column: the inbox messages earlier cells took,
 * and, for a cell that suspended, how many journal items of each part the job's history already reflects
 * (their console lines and tool-call records were committed with the suspension; a replay does not add them again).
 */
function durableState(row: JobRow, changes: StepChanges): { journalCommitted: Record<string, number>; messagesTaken: number } {
  const state = { ...row.state, ...(changes.job.state ?? {}) };
  return { journalCommitted: journalCommitted(state), messagesTaken: typeof state.messagesTaken === "number" ? state.messagesTaken : 0 };
}

/** The journal items of each part the job's history reflects already (committed with a suspension), as stored. */
function journalCommitted(state: Record<string, unknown>): Record<string, number> {
  const committed: Record<string, number> = {};
  const stored = state.journalCommitted;
  if (stored && typeof stored === "object" && !Array.isArray(stored)) {
    for (const [part, count] of Object.entries(stored)) if (typeof count === "number") committed[part] = count;
  }
  return committed;
}

/** How many journal items of `part` the job's history reflects already (committed with a suspension). */
export function committedCount(state: Record<string, unknown>, part: string): number {
  return journalCommitted(state)[part] ?? 0;
}

/** The text of the n-th message pushed to the job, if its record is in the history. */
function inboxMessage(history: readonly HistoryRecord[], n: number): JsonValue | undefined {
  for (const record of history) {
    if (record.kind !== "user-message") continue;
    const data = record.data as { text?: unknown; inbox?: unknown };
    if (data.inbox === n && typeof data.text === "string") return data.text;
  }
  return undefined;
}

/**
 * Runs `code` as part `part` of the job's current cell number, replaying what `journal` holds for it. The
 * report says whether the cell suspended; the caller absorbs it into the step's changes.
 */
export async function runDurableCell(
  context: DurableCellContext, workspace: Workspace, code: string, part: string, journal: ReadonlyMap<string, JournalItem[]>, options: WorkspaceCellOptions = {},
): Promise<{ report: WorkspaceReport; futures: JobFutures }> {
  const { row, tx, changes } = context;
  const state = durableState(row, changes);
  const items = journal.get(part) ?? [];
  // Checked when it first runs; a cell with a journal passed its check then (a refused cell never has one).
  const admission = await admitCell(context, workspace, code, part, items.length > 0);
  const futures = new JobFutures({
    store: waitStore(tx),
    jobId: row.id,
    cell: row.cell,
    fence: tx.fence,
    messagesTaken: state.messagesTaken,
    signals: context.env.signals,
    inboxMessage: (n) => inboxMessage(context.history, n),
    role: row.role,
    errorHandlers: { ...row.state, ...(changes.job.state ?? {}) }.errorHandlers ?? null,
    childEnded: (child) => settleParentWait(context.env, child),
  });
  if (admission.refused) {
    futures.close();
    return { report: admission.refused, futures };
  }
  tx.journalFor(row.cell, journalLength(journal));
  if (context.memory) pinMemoryNames(context.memory, row.id, tx, part, journal);
  const traced = startCellSpan(context.env.trace, { number: row.cell, part });
  let failure: unknown;
  try {
    const report = await workspace.runCell(code, {
      ...options,
      cell: row.cell,
      journal: { journal: items, committedItems: state.journalCommitted[part] ?? 0, sink: partSink(tx, part), futures },
      trace: traced.context,
    });
    if (admission.warnings) {
      report.console = [...admission.warnings, ...report.console];
      if (report.toolCallPositions) report.toolCallPositions = report.toolCallPositions.map((position) => position + admission.warnings!.length);
    }
    traced.span.setAttribute("statek.cell.crossings", report.crossings.length);
    if (report.suspended) traced.span.setAttribute("statek.cell.suspended", true);
    if (items.length) traced.span.setAttribute("statek.cell.replayed_items", items.length);
    failure = report.error;
    return { report, futures };
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    endSpan(traced.span, failure);
    futures.close();
    context.memory?.unpinNames();
  }
}

/**
 * Fixes the shared-memory names in scope for the cell of `part`: on its first run, the names memory has now,
 * journaled (in part `memory:<part>`, ahead of the cell's own crossings) so that a replay after a suspension or a
 * crash gets the same names, never the ones memory has by then.
 */
function pinMemoryNames(memory: JobMemory, jobId: string, tx: StepTransaction, part: string, journal: ReadonlyMap<string, JournalItem[]>): void {
  const namesPart = `memory:${part}`;
  const recorded = journal.get(namesPart)?.find((item) => item.t === "done");
  if (recorded?.t === "done") {
    memory.pinNames(decodeMemoryNames(jobId, recorded.r));
    return;
  }
  const names = memory.names().map(([name, category]) => [name, category] as const);
  tx.appendPart([{ t: "done", seq: 0, r: JSON.stringify(names) }], namesPart);
  memory.pinNames(names);
}

/** The names a journal item recorded: `[[name, category], …]`, checked. */
function decodeMemoryNames(jobId: string, text: string): Array<readonly [string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new CorruptRecordError({ jobId, location: "journal (shared-memory names)", cause });
  }
  if (!Array.isArray(parsed) || !parsed.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string"))) {
    throw new CorruptRecordError({ jobId, location: "journal (shared-memory names)", cause: new TypeError("expected [[name, category], …]") });
  }
  return parsed.map((pair: string[]) => [pair[0]!, pair[1]!] as const);
}

/**
 * The store calls of the cell's durable waits, each retried like the step's own (see `FutureStore`): a wait
 * never throws a busy store into agent code, and one that fails past the retries stops the step.
 */
function waitStore(tx: StepTransaction): FutureStore {
  const { store, signal } = tx;
  const retry = <T>(operation: () => Promise<T>): Promise<T> => withStoreRetries(operation, { signal });
  return {
    getFuture: (key) => retry(() => store.getFuture(key)),
    createFutures: (jobId, fence, futures) => retry(() => store.createFutures(jobId, fence, futures)),
    settleFuture: (key, settlement) => retry(() => store.settleFuture(key, settlement)),
    getJob: (id) => retry(() => store.getJob(id)),
    listJobs: (filter) => retry(() => store.listJobs(filter)),
    // Inserted already (an attempt whose answer was lost): the caller finds the job and goes on.
    insertJob: (job, variables, history) => retry(() => store.insertJob(job, variables, history)),
  };
}

/** The number of journal items of all parts. */
export function journalLength(journal: ReadonlyMap<string, JournalItem[]>): number {
  let length = 0;
  for (const items of journal.values()) length += items.length;
  return length;
}

/** Applies a durable cell's end to the step: a suspension, or the end of the job's current cell number. */
export async function settleCell(
  context: DurableCellContext, report: WorkspaceReport, futures: JobFutures, part: string, journal: ReadonlyMap<string, JournalItem[]>,
): Promise<void> {
  const { row, changes, tx } = context;
  const state = durableState(row, changes);
  // Requests and children the cell watches: their outcome goes into the history once they settle (now, if they have).
  watchWaits(row, changes, futures.watched);
  await recordSettledWaits(context.env, row, changes, context.history);
  if (report.suspended) {
    const waiting = await retried(context.env, () => tx.store.listFutures(row.id, { state: "waiting" }));
    const timers = waiting.map((future) => future.wakeAt).filter((at): at is number => at !== null);
    changes.job.wakeAt = timers.length ? Math.min(...timers) : null;
    // Every part's journal so far is in this commit: what earlier attempts wrote and what this step added, the
    // parts before this one (formal calls, cells that ended) completely, this one as far as it got.
    const committed: Record<string, number> = {};
    for (const [name, items] of journal) committed[name] = items.length;
    for (const [name, count] of tx.appendedByPart) committed[name] = (committed[name] ?? 0) + count;
    committed[part] = report.journal?.length ?? 0;
    changes.job.state = { ...row.state, ...(changes.job.state ?? {}), journalCommitted: committed, suspendedIn: part };
    // A future settled between the cell's last look and this commit wakes the job at once.
    changes.wakeIfSettled = [...new Set([...waiting.map((future) => future.key), ...futures.awaited])];
    if (changes.status !== "SUSPENDED") changes.setStatus("SUSPENDED", waitReason(waiting.map((future) => future.kind)));
    return;
  }
  changes.clearJournal = true;
  changes.job.cell = row.cell + 1;
  changes.job.wakeAt = null;
  const { suspendedIn: _suspendedIn, ...rest } = { ...row.state, ...(changes.job.state ?? {}) };
  changes.job.state = { ...rest, journalCommitted: {}, messagesTaken: state.messagesTaken + futures.messagesTaken };
  if (changes.status === "SUSPENDED") changes.setStatus(part === "warmup" ? "WARMING_UP" : "STARTED", "what the cell waited for came");
}

function waitReason(kinds: readonly string[]): string {
  const names = [...new Set(kinds)].map((kind) => (kind === "timer" ? "a timer" : kind === "message" ? "a message" : kind === "approval" ? "an approval" : kind === "child" ? "a child job" : "a future"));
  return names.length ? `waiting for ${names.join(" and ")}` : "waiting";
}
