/**
 * @module
 * Every write of the store contract, applied inside one adapter transaction with the rules of `store-rules.ts`:
 * the row is locked, checked (version, fence, transition, order), then written. Shapes were checked before
 * (`store-checks.ts`); JSON is encoded as each row is written, so a value that cannot be encoded fails its own
 * write only, midway, and the group commit undoes what that write had done (`group-commit.ts`).
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import { JobConflictError } from "../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import type { Fence, FutureSettlement, JournalEntry, Lease, NewFuture, NewJobEvent, SettleResult } from "./durable-rows.ts";
import type { AdapterTransaction, JobValues, StoredRow } from "./store-adapter.ts";
import { decodeClaimCandidate, decodeFuture, decodeLease, decodeLockedJob, futureJobIdOf, futureKindOf, futureStateOf, readInteger, readStrict, readText } from "./store-rows.ts";
import {
  WAITING_STATUS, checkContinues, checkDoor, checkFence, checkTransition, claimedLease, earlyKindOf, holds, isFinal, isLive, isRunnable, runnableSince,
} from "./store-rules.ts";
import type { ClaimFilter, HistoryRow, JobCommit, JobRow, VariableRow } from "./store.ts";

/** JSON text of a value (`undefined` is stored as `null`). Throws for what JSON cannot hold (a bigint, a cycle). */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** The value `read` gives, or `undefined` when the field is corrupt. */
function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

async function lockExisting(transaction: AdapterTransaction, id: string): Promise<StoredRow> {
  const row = await transaction.lockJob(id);
  if (row === undefined) throw new NoSuchJobError({ jobId: id });
  return row;
}

/** The job fields stored as JSON text. */
const JSON_FIELDS = new Set(["params", "metadata", "usage", "state"]);

const encodeHistory = (record: HistoryRow) => ({ seq: record.seq, kind: record.kind, at: record.at, data: encodeJson(record.data) });

/**
 * `insertJob`: a new job with its variables and history; its lease is empty, or `lease` (a first claim, epoch 1).
 * Its variable versions are kept from its `turns` on, or from `versionsFrom` (a fork, given its original's).
 */
export async function insertJobIn(
  transaction: AdapterTransaction, job: JobRow, variables: readonly VariableRow[], history: readonly HistoryRow[], lease?: Lease,
  versionsFrom = job.turns,
): Promise<void> {
  checkContinues("history seq", job.id, 0, history.map((record) => record.seq));
  if (job.historyLength !== history.length) {
    throw new Error(`insertJob: job ${job.id} has historyLength ${job.historyLength} but ${history.length} history records`);
  }
  const values: JobValues = {
    id: job.id, role: job.role, status: job.status, params: encodeJson(job.params), metadata: encodeJson(job.metadata),
    parentId: job.parentId, createdAt: job.createdAt, updatedAt: job.updatedAt, version: job.version, turns: job.turns,
    pendingSeq: job.pendingSeq, historyLength: job.historyLength, exitStatus: job.exitStatus, error: job.error,
    usage: encodeJson(job.usage), state: encodeJson(job.state), wakeAt: job.wakeAt, cell: job.cell,
    leaseOwner: lease?.owner ?? null, leaseEpoch: lease?.epoch ?? 0, leaseUntil: lease?.until ?? null,
    forkedFrom: job.forkedFrom === undefined ? null : encodeJson({ jobId: job.forkedFrom.jobId, turn: job.forkedFrom.turn }), versionsFrom,
  };
  // The job's rows are written before the insert's answer is read (an adapter may send them together); when the
  // id existed, the error undoes them with the rest of this write.
  const inserted = transaction.insertJob(values);
  await transaction.putVariables(job.id, variables);
  // A job's variable versions begin with its initial variables, under the turn it starts at.
  if (variables.length) await transaction.putVariableVersions(job.id, variables.map((variable) => ({ ...variable, turn: job.turns })));
  await transaction.insertHistory(job.id, history.map(encodeHistory));
  // Every reader of the outbox hears of every job, in the transaction that creates it.
  await appendEventsIn(transaction, [{ jobId: job.id, kind: "job-submitted", data: { role: job.role } }]);
  if (!(await inserted)) throw new Error(`insertJob: a job with id ${job.id} already exists`);
}

/**
 * `commit`: one step's changes, after the fence, version, transition and history checks. Resolves to the job's
 * role (`undefined` when it cannot be read) and the store's time of the commit.
 */
export async function commitIn(transaction: AdapterTransaction, change: JobCommit): Promise<{ role: string | undefined; now: number }> {
  const { id } = change;
  const row = await lockExisting(transaction, id);
  if (change.fence !== undefined) checkFence(id, decodeLease(row), change.fence);
  const job = decodeLockedJob(row);
  const version = job.version;
  if (version !== change.expectedVersion) throw new JobConflictError({ jobId: id, expectedVersion: change.expectedVersion, actualVersion: version });
  const fields = change.job ?? {};
  const stored = job.status;
  checkTransition(id, stored, fields.status);
  const appended = change.appendHistory ?? [];
  const historyLength = job.historyLength + appended.length;
  checkContinues("history seq", id, job.historyLength, appended.map((record) => record.seq));
  if (fields.historyLength !== undefined && fields.historyLength !== historyLength) {
    throw new Error(`commit to job ${id}: historyLength ${fields.historyLength} disagrees with the history, which will have ${historyLength} records`);
  }
  const now = await transaction.now();

  if (change.cancelFutures) await transaction.settleWaitingFutures(id, { state: "cancelled", value: "null", settledAt: now });
  if (change.createFutures?.length) await createFuturesIn(transaction, id, change.createFutures, now);

  const values: Partial<Omit<JobValues, "id">> = { version: version + 1, updatedAt: now, historyLength };
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined || field === "historyLength") continue;
    // The fields were checked against COMMIT_FIELDS; the JSON ones are stored as text.
    Object.assign(values, { [field]: JSON_FIELDS.has(field) ? encodeJson(value) : value });
  }
  const status = fields.status ?? stored;
  if (status === WAITING_STATUS && (await anySettled(transaction, change.wakeIfSettled ?? []))) {
    const wakeAt = fields.wakeAt !== undefined ? fields.wakeAt : job.wakeAt;
    if (wakeAt === null || wakeAt === undefined || wakeAt > now) values.wakeAt = now;
  }
  if (change.releaseLease) Object.assign(values, { leaseOwner: null, leaseUntil: null });
  await transaction.updateJob(id, values);

  if (change.deleteVariables?.length) await transaction.deleteVariables(id, change.deleteVariables);
  if (change.putVariables?.length) await transaction.putVariables(id, change.putVariables);
  await keepVersions(transaction, id, job.turns ?? fields.turns, change);
  if (appended.length) await transaction.insertHistory(id, appended.map(encodeHistory));
  if (change.clearJournal) await transaction.deleteJournal(id);
  if (change.events?.length) await appendEventsIn(transaction, change.events.map((event) => ({ ...event, jobId: event.jobId ?? id })), now);
  for (const { key, settlement } of change.settleFutures ?? []) {
    const existing = await transaction.lockFuture(key);
    if (existing !== undefined) await settleRow(transaction, key, existing, settlement, now);
  }
  return { role: readable(() => readText(row["role"])), now };
}

/**
 * Keeps what a commit put and deleted as versions under the job's turn as the commit found it (the turn whose
 * execution changed them): only the changed names, one write. A job whose `turns` cannot be read (a damaged row
 * the commit does not repair) cannot change variables: their versions would be lost.
 */
async function keepVersions(transaction: AdapterTransaction, id: string, turn: number | undefined, change: JobCommit): Promise<void> {
  const put = change.putVariables ?? [];
  const putNames = new Set(put.map((variable) => variable.name));
  const deleted = (change.deleteVariables ?? []).filter((name) => !putNames.has(name));
  if (put.length === 0 && deleted.length === 0) return;
  if (turn === undefined) throw new CorruptRecordError({ jobId: id, location: "jobs.turns", cause: new Error("the turn to keep the variables' versions under cannot be read") });
  await transaction.putVariableVersions(id, [
    ...put.map((variable) => ({ name: variable.name, turn, position: variable.position, blob: variable.blob })),
    ...deleted.map((name) => ({ name, turn, position: 0, blob: null })),
  ]);
}

async function anySettled(transaction: AdapterTransaction, keys: readonly string[]): Promise<boolean> {
  for (const key of keys) {
    const row = await transaction.lockFuture(key);
    if (row !== undefined && futureStateOf(row) !== "waiting") return true;
  }
  return false;
}

/** Creates futures for job `jobId` (adopting keys settled before anyone created them). */
export async function createFuturesIn(transaction: AdapterTransaction, jobId: string, futures: readonly NewFuture[], now: number): Promise<void> {
  for (const future of futures) {
    const data = encodeJson(future.data);
    const created = await transaction.insertFuture({
      key: future.key, jobId, kind: future.kind, wakeAt: future.wakeAt, state: "waiting", value: "null", data, createdAt: now, settledAt: null,
    });
    if (created) continue;
    const existing = (await transaction.lockFuture(future.key))!;
    const owner = futureJobIdOf(existing);
    if (owner === null && futureKindOf(existing).kind === future.kind) {
      await transaction.updateFuture(future.key, { jobId, kind: future.kind, wakeAt: future.wakeAt, data });
    } else if (owner === null) {
      // Settled early through another kind's door (`resolveFuture` naming a message wait's key before the job
      // waited): that settlement never counted. The job's wait starts afresh.
      await transaction.updateFuture(future.key, { jobId, kind: future.kind, wakeAt: future.wakeAt, data, state: "waiting", value: "null", createdAt: now, settledAt: null });
    } else if (owner !== jobId) throw new Error(`job ${jobId}: the future key ${JSON.stringify(future.key)} belongs to job ${owner}`);
  }
}

/** `createFutures` outside a commit: fenced. */
export async function createFuturesFenced(transaction: AdapterTransaction, jobId: string, fence: Fence, futures: readonly NewFuture[]): Promise<void> {
  const row = await lockExisting(transaction, jobId);
  checkFence(jobId, decodeLease(row), fence);
  await createFuturesIn(transaction, jobId, futures, await transaction.now());
}

/** `appendJournal`: fenced, dense, replacing an earlier cell's journal. */
export async function appendJournalIn(transaction: AdapterTransaction, jobId: string, fence: Fence, cell: number, entries: readonly JournalEntry[]): Promise<void> {
  const row = await lockExisting(transaction, jobId);
  checkFence(jobId, decodeLease(row), fence);
  // Only the journal's two ends are read: a check of every entry would make each append cost more the longer the
  // cell's journal grew (every append is checked to continue it densely, so the ends tell the whole).
  const ends = await transaction.journalEnds(jobId);
  const place = { jobId, prefix: "journal" };
  let count = 0;
  let start = 0;
  if (ends) {
    const firstIndex = readStrict(ends, "firstIndex", readInteger, place);
    const firstCell = readStrict(ends, "firstCell", readInteger, place);
    const lastIndex = readStrict(ends, "lastIndex", readInteger, place);
    const journalCell = readStrict(ends, "lastCell", readInteger, place);
    if (firstIndex !== 0 || firstCell !== journalCell) {
      const cause = new Error(`entries from index ${firstIndex} (cell ${firstCell}) to ${lastIndex} (cell ${journalCell}): not one cell numbered from 0`);
      throw new CorruptRecordError({ jobId, location: "journal", cause });
    }
    count = lastIndex + 1;
    if (cell < journalCell) throw new Error(`appendJournal to job ${jobId}: cell ${cell} is older than the journal's cell ${journalCell}`);
    if (cell === journalCell) start = count;
  }
  checkContinues("journal index", jobId, start, entries.map((entry) => entry.index));
  if (count > 0 && start === 0) await transaction.deleteJournal(jobId);
  if (entries.length) await transaction.insertJournal(jobId, cell, entries.map((entry) => ({ index: entry.index, data: encodeJson(entry.data) })));
}

/**
 * `settleFuture`: through the door of the future's kind only; first writer wins; wakes a suspended job and tells
 * the outbox. A key nobody created yet is created settled, when its door may answer early (an application's
 * future, a pushed message).
 */
export async function settleIn(transaction: AdapterTransaction, key: string, settlement: FutureSettlement): Promise<SettleResult> {
  const now = await transaction.now();
  const value = encodeJson(settlement.value);
  const early = earlyKindOf(settlement.door);
  const created = early !== undefined && await transaction.insertFuture({
    key, jobId: null, kind: early, wakeAt: null, state: settlement.state, value, data: "null", createdAt: now, settledAt: now,
  });
  if (created) return { settled: true, future: decodeFuture((await transaction.lockFuture(key))!) };
  const existing = await transaction.lockFuture(key);
  if (existing === undefined) throw new Error(`settleFuture: there is no future ${JSON.stringify(key)} to settle (by ${settlement.door})`);
  return settleRow(transaction, key, existing, settlement, now);
}

/** Settles the existing future `key` (read as `existing`, locked): door checked, first writer wins, its job woken. */
async function settleRow(transaction: AdapterTransaction, key: string, existing: StoredRow, settlement: FutureSettlement, now: number): Promise<SettleResult> {
  const jobId = futureJobIdOf(existing);
  // A job's wait is settled through its own door only; one settled early, before any job waited, is nobody's yet.
  if (jobId !== null) {
    const { kind, wakeAt } = futureKindOf(existing);
    checkDoor(key, kind, wakeAt, settlement.door);
  }
  if (futureStateOf(existing) !== "waiting") return { settled: false, future: decodeFuture(existing) };
  await transaction.updateFuture(key, { state: settlement.state, value: encodeJson(settlement.value), settledAt: now });
  if (jobId !== null) await wake(transaction, jobId, key, settlement, now);
  return { settled: true, future: decodeFuture((await transaction.lockFuture(key))!) };
}

async function wake(transaction: AdapterTransaction, jobId: string, key: string, settlement: FutureSettlement, now: number): Promise<void> {
  const row = await transaction.lockJob(jobId);
  if (row === undefined) return;
  const { status, wakeAt } = decodeLockedJob(row);
  if (status === WAITING_STATUS && (wakeAt === null || wakeAt === undefined || wakeAt > now)) {
    await transaction.updateJob(jobId, { wakeAt: now });
  }
  await transaction.insertEvents([{ jobId, kind: "future-settled", at: now, data: encodeJson({ key, state: settlement.state }) }]);
}

/** `appendEvents` (and a commit's events): stamped with the store's clock. */
export async function appendEventsIn(transaction: AdapterTransaction, events: ReadonlyArray<NewJobEvent & { jobId: string }>, now?: number): Promise<void> {
  const at = now ?? (await transaction.now());
  await transaction.insertEvents(events.map((event) => ({ jobId: event.jobId, kind: event.kind, at, data: encodeJson(event.data) })));
}

/** `claimJob`: a job that is not final and has no live lease; `preemptJob` (`preempt`): live leases too. */
export async function claimJobIn(transaction: AdapterTransaction, jobId: string, owner: string, leaseMs: number, preempt = false): Promise<Lease | null> {
  const row = await transaction.lockJob(jobId);
  if (row === undefined) return null;
  const { status } = decodeLockedJob(row);
  if (status !== undefined && isFinal(status)) return null;
  const current = decodeLease(row);
  const now = await transaction.now();
  if (!preempt && isLive(current, now)) return null;
  const lease = claimedLease(jobId, current, owner, leaseMs, now);
  await transaction.updateJob(jobId, { leaseOwner: lease.owner, leaseEpoch: lease.epoch, leaseUntil: lease.until });
  return lease;
}

/** `claimRunnable`: the adapter's candidates, re-checked, merged oldest first, claimed. */
export async function claimRunnableIn(transaction: AdapterTransaction, owner: string, leaseMs: number, limit: number, filter: ClaimFilter): Promise<Lease[]> {
  const now = await transaction.now();
  const rows = await transaction.selectClaimable({ now, limit, ...(filter.roles ? { roles: filter.roles } : {}) });
  const candidates: Array<{ id: string; since: number; lease: ReturnType<typeof decodeLease> }> = [];
  for (const row of rows) {
    const { id, role, status, wakeAt, createdAt } = decodeClaimCandidate(row);
    const lease = readable(() => decodeLease(row));
    // A row the engine offered but the rules refuse (or whose lease cannot be read) is left alone.
    if (status === undefined || wakeAt === undefined || lease === undefined) continue;
    if (!isRunnable(status, wakeAt, now) || isLive(lease, now)) continue;
    if (filter.roles && !filter.roles.includes(role ?? "")) continue;
    // A job whose createdAt cannot be read counts as the oldest: claimed, its runner fails it.
    candidates.push({ id, since: runnableSince(status, wakeAt, createdAt ?? 0), lease });
  }
  candidates.sort((a, b) => a.since - b.since);
  const leases: Lease[] = [];
  for (const candidate of candidates.slice(0, limit)) {
    const lease = claimedLease(candidate.id, candidate.lease, owner, leaseMs, now);
    await transaction.updateJob(candidate.id, { leaseOwner: lease.owner, leaseEpoch: lease.epoch, leaseUntil: lease.until });
    leases.push(lease);
  }
  return leases;
}

/** `renewLease`: the holder extends its lease, expired or not, as long as nobody claimed since. */
export async function renewIn(transaction: AdapterTransaction, jobId: string, fence: Fence, leaseMs: number): Promise<Lease | null> {
  const row = await transaction.lockJob(jobId);
  if (row === undefined || !holds(decodeLease(row), fence)) return null;
  const until = (await transaction.now()) + leaseMs;
  await transaction.updateJob(jobId, { leaseUntil: until });
  return { jobId, owner: fence.owner, epoch: fence.epoch, until };
}

/** `releaseLease`: ends the holder's lease at once. */
export async function releaseIn(transaction: AdapterTransaction, jobId: string, fence: Fence): Promise<void> {
  const row = await transaction.lockJob(jobId);
  if (row === undefined || !holds(decodeLease(row), fence)) return;
  await transaction.updateJob(jobId, { leaseOwner: null, leaseUntil: null });
}
