/**
 * @module
 * A step's commit, rebased over what clients appended to the job meanwhile (a paid model reply is
 * never asked for again). A step commits against the version of the job it read; a client that appends to the
 * job while the step runs — a pushed message, an operator's note — moves the version on, and the commit loses.
 * Doing the step again would ask the model again for the same turn. Instead the step's changes are moved after
 * the appended records and committed again: its records renumbered, its state merged with theirs key by key, a
 * reply of this step marked as not having seen the messages (the prompt shows them after it), and a dialog turn
 * that ended meanwhile opened again for the new message, as `pushMessage` opens a finished one.
 *
 * Only appends are rebased: a client that changed anything else about the job (its status, its turn) makes the
 * conflict stand, and the step is abandoned as before. A commit whose answer was lost (the connection dropped as
 * it committed) and that the job shows as made is taken as made.
 */
import { CorruptRecordError } from "../../errors/corrupt-record-error.ts";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import type { JobRow, JsonValue } from "../../store/store.ts";
import { retried } from "../../store/store-retries.ts";
import type { HistoryRecord } from "../history/history.ts";
import { decodeHistory } from "../history/history-codec.ts";
import { MESSAGE_RESTART_REASON, restartedState } from "./job-state.ts";
import type { StepChanges } from "./step-changes.ts";
import type { StepEnvironment } from "./step-environment.ts";
import type { StepTransaction } from "./step-transaction.ts";

/** Records clients append to a job without a lease: the only ones a step's commit is rebased over. */
const CLIENT_KINDS: ReadonlySet<string> = new Set(["user-message", "operator-action"]);

/** Job fields a client's append leaves alone; one that changed makes the conflict stand. */
const KEPT_FIELDS = ["status", "turns", "pendingSeq", "exitStatus", "error", "cell", "usage", "parentId", "params", "metadata"] as const;

/** Commits that lose again and again (a client pushing fast) are rebased this often before the step gives up. */
const ATTEMPTS = 8;

/** What the commit was finally made against. */
export interface RebasedCommit {
  /** The job as the commit found it: `row`, or the job after the records others appended. */
  base: JobRow;
  /** The records others appended before the step's own, in order. */
  appended: HistoryRecord[];
}

/**
 * Commits `changes` of the step that read `row`, rebasing them over clients' appends when the commit loses to
 * one (see the module comment). Rejects as `tx.commit` does when the conflict cannot be rebased.
 */
export async function commitRebasing(
  env: Pick<StepEnvironment, "store" | "signal">, tx: StepTransaction, row: JobRow, changes: StepChanges, options: { keepLease: boolean; dialog: boolean },
): Promise<RebasedCommit> {
  let base = row;
  const appended: HistoryRecord[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      await retried(env, () => tx.commit(changes.commit(base), { keepLease: options.keepLease }));
      return { base, appended };
    } catch (error) {
      if (!(error instanceof JobConflictError) || attempt >= ATTEMPTS) throw error;
      const current = await retried(env, () => env.store.getJob(base.id));
      if (!current) throw error;
      let records: HistoryRecord[];
      try {
        records = decodeHistory(base.id, await retried(env, () => env.store.getHistory(base.id, { fromSeq: base.historyLength })));
      } catch (cause) {
        if (cause instanceof CorruptRecordError) throw error;
        throw cause;
      }
      if (isOwnCommit(base, current, records, changes)) {
        await tx.landed({ keepLease: options.keepLease, clearedJournal: changes.clearJournal });
        return { base, appended };
      }
      if (!rebase(base, current, records, changes, options.dialog)) throw error;
      appended.push(...records);
      base = current;
    }
  }
}

/** True when the records after `base` are this step's own: its commit landed and only its answer was lost. */
function isOwnCommit(base: JobRow, current: JobRow, records: readonly HistoryRecord[], changes: StepChanges): boolean {
  if (current.version !== base.version + 1 || records.length !== changes.records.length) return false;
  return records.every((record, index) => {
    const own = changes.records[index]!;
    // Its own records, stamped by this step: a client's append at the same place is of another kind.
    return record.seq === own.seq && record.kind === own.kind && record.at === own.at;
  });
}

/** Moves `changes` after `appended`, made by clients between `base` and `current`; false when that cannot be done. */
function rebase(base: JobRow, current: JobRow, appended: readonly HistoryRecord[], changes: StepChanges, dialog: boolean): boolean {
  if (current.historyLength !== base.historyLength + appended.length) return false;
  if (!appended.every((record) => CLIENT_KINDS.has(record.kind))) return false;
  if (!KEPT_FIELDS.every((field) => same(base[field], current[field]))) return false;
  if (changes.job.state !== undefined) {
    const merged = mergeState(base.state, changes.job.state, current.state);
    if (!merged) return false;
    changes.job.state = merged;
  }
  const messages = appended.filter((record) => record.kind === "user-message").map((record) => record.seq);
  changes.shiftAfter(appended.length, messages);
  // A job this step suspends wakes for a message that arrived meanwhile: the step may have opened its message
  // wait before the push committed (the push found no wait to settle) and read its history before the message,
  // so only its next step, replaying the cell with the message in its history, can give the wait its message.
  if (messages.length && changes.status === "SUSPENDED") changes.job.wakeAt = Date.now();
  // A dialog turn this step ended has a message to answer now: the job goes on, as a pushed message restarts it.
  if (dialog && messages.length && changes.status === "DONE") {
    changes.setStatus("STARTED", MESSAGE_RESTART_REASON);
    changes.job.state = restartedState({ ...current.state, ...(changes.job.state ?? {}) }, changes.job.turns ?? current.turns);
  }
  return true;
}

/**
 * The job state with the step's changes (`ours`, made from `base`) and a client's (`theirs`): each key as the
 * side that changed it left it; `undefined` when both changed one key differently.
 */
function mergeState(base: Record<string, JsonValue>, ours: Record<string, JsonValue>, theirs: Record<string, JsonValue>): Record<string, JsonValue> | undefined {
  const merged: Record<string, JsonValue> = {};
  for (const key of new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)])) {
    const [was, mine, other] = [base[key], ours[key], theirs[key]];
    let value: JsonValue | undefined;
    if (same(mine, was)) value = other;
    else if (same(other, was) || same(mine, other)) value = mine;
    else return undefined;
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
