/**
 * @module
 * The one implementation of the {@link Store} contract's behaviour, over an engine's {@link StoreAdapter}: input
 * checks, the rules (`store-rules.ts`), group commit, decoding of what was read, the closed state, cancellation
 * and error classification. Every store is this class over an adapter: `createStore(adapter)`, or the built-in
 * `SqliteStore` and `PostgresStore`, which also check their configuration. A new engine writes an adapter —
 * SQL only — and passes the adapter conformance suite (`runAdapterSuite`).
 */
import { CorruptRecordError } from "../errors/corrupt-record-error.ts";
import type { Fence, FutureKind, FutureRow, FutureSettlement, FutureState, JobEventRow, Journal, JournalEntry, Lease, NewFuture, NewJobEvent, SettleResult } from "./durable-rows.ts";
import { FUTURE_KINDS, FUTURE_STATES } from "./durable-rows.ts";
import { GroupCommit } from "./group-commit.ts";
import { toCountQuery, toJobPageQuery } from "./job-browse.ts";
import type { AdapterTransaction, StoreAdapter } from "./store-adapter.ts";
import {
  checkClaim, checkCommit, checkCount, checkFork, checkEvents, checkFenceShape, checkHistory, checkId, checkJobRow, checkJournalEntries, checkNewFutures,
  checkMemoryContexts, checkMemoryEntry, checkMemoryKey, checkRoles, checkSettlement, checkVariables, checkAgentJobsRequest, checkRole,
} from "./store-checks.ts";
import {
  decodeEvent, decodeFuture, decodeHistoryRow, decodeJob, decodeJournalEntry, decodeLease, decodeMemory, decodeVariable, readInteger, readStrict, readText,
} from "./store-rows.ts";
import { isJobStatus, toLease } from "./store-rules.ts";
import {
  appendEventsIn, appendJournalIn, claimJobIn, claimRunnableIn, commitIn, createFuturesFenced, insertJobIn, releaseIn, renewIn, settleIn,
} from "./store-writes.ts";
import { OutboxReader } from "./outbox-reader.ts";
import { insertForkIn } from "./fork-writes.ts";
import type { AgentEventRow, AgentJobsRequest, AgentJobsResult, AgentRow } from "./agent-rows.ts";
import { countOutcomeIn, createAgentJobsIn, decodeAgent, decodeAgentEvent, pushAgentEventIn, resetAgentIn } from "./agent-writes.ts";
import type {
  ClaimFilter, EventFollow, EventFollower, EventQuery, FollowOptions, HistoryRow, JobBrowseQuery, JobCommit, JobCountQuery, JobFilter, JobFork,
  JobRow, JobStatus, MemoryEntry, NextClaim, Store, StoreCallOptions, VariableRow, WakeupOrigin,
} from "./store.ts";

/** Marks a write that may make a job runnable or append events: a wake-up hint follows its commit. */
const WAKES = true;

/**
 * A {@link Store} over an engine's adapter.
 *
 * - **Opening and migrating are lazy**: the first call migrates (the adapter opens its connection then).
 *   Calling `migrate()` first is optional and surfaces schema errors early. A failed migration is tried again
 *   by the next call, so every call fails the same way until it succeeds.
 * - **Writes are group-committed** (`group-commit.ts`): every write — inserts, commits, journal appends,
 *   futures, settlements, events, claims and lease changes — made in the same event-loop turn shares one
 *   transaction, applied in call order; a failing write undoes only itself (the batch is redone with a savepoint
 *   per write when one fails).
 * - **Corrupt rows never break reads** (`store-rows.ts`): a field that cannot be read throws
 *   `CorruptRecordError` when it is read.
 * - **Engine errors carry their retry policy**: the adapter classifies them as `StoreError`s with `isRetryable`.
 */
export class StoreCore implements Store {
  readonly dialect: string;
  readonly supportsMultipleProcesses: boolean;
  readonly #adapter: StoreAdapter;
  readonly #writes: GroupCommit;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #wakeupListeners = new Set<(origin: WakeupOrigin) => void>();
  #stopWatching: (() => void) | undefined;
  /** Origins of the hints heard in this turn, not yet passed on (hints of one turn are passed on once). */
  readonly #pendingOrigins = new Set<WakeupOrigin>();
  readonly #outbox: OutboxReader;
  #migrating: Promise<void> | undefined;
  #migrated = false;
  #closing: Promise<void> | undefined;
  readonly #name: string | undefined;

  /** Use `createStore(adapter)`; `name` names the store in errors. */
  constructor(adapter: StoreAdapter, name?: string) {
    this.#adapter = adapter;
    this.#name = name;
    this.#writes = new GroupCommit(adapter, (announced) => {
      if (!announced) adapter.announceWakeup?.();
      this.#wakeUp("local");
    });
    this.#outbox = new OutboxReader({
      readEvents: (query) => this.readEvents(query),
      lastEventId: () => this.lastEventId(),
      subscribeWakeups: (listener) => this.subscribeWakeups(listener),
    });
    this.dialect = adapter.dialect;
    this.supportsMultipleProcesses = adapter.supportsMultipleProcesses;
  }

  /** A name for errors (`SqliteStore ./statek.db`, …). */
  protected get storeName(): string {
    return this.#name ?? this.constructor.name;
  }

  migrate(options?: StoreCallOptions): Promise<void> {
    return this.#call(options, async () => undefined);
  }

  insertJob(job: JobRow, variables: VariableRow[], history: HistoryRow[], options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => {
      checkJobRow(job);
      if (job.forkedFrom !== undefined) throw new TypeError(`insertJob of job ${job.id}: a fork (forkedFrom) is inserted with insertFork, which copies its variables`);
      checkVariables(`insertJob of job ${job.id}`, variables);
      checkHistory(`insertJob of job ${job.id}`, history);
      return this.#write((transaction) => insertJobIn(transaction, job, variables, history), options, WAKES);
    });
  }

  insertFork(fork: JobFork, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => {
      checkFork(fork);
      return this.#write((transaction) => insertForkIn(transaction, fork), options, WAKES);
    });
  }

  getJob(id: string, options?: StoreCallOptions): Promise<JobRow | null> {
    return this.#call(options, async () => {
      const row = await this.#adapter.readJob(id);
      return row === undefined ? null : decodeJob(row);
    });
  }

  getVariables(id: string, options?: StoreCallOptions): Promise<VariableRow[]> {
    return this.#call(options, async () => (await this.#adapter.readVariables(id)).map((row) => decodeVariable(id, row)));
  }

  getHistory(id: string, options?: StoreCallOptions & { fromSeq?: number }): Promise<HistoryRow[]> {
    return this.#call(options, async () => {
      const fromSeq = options?.fromSeq ?? 0;
      checkCount("getHistory", "fromSeq", fromSeq);
      return (await this.#adapter.readHistory(id, fromSeq)).map((row) => decodeHistoryRow(id, row));
    });
  }

  commit(change: JobCommit, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, async () => {
      checkCommit(change);
      const outcome = change.agentOutcome;
      await this.#write(async (transaction) => {
        const { role, now } = await commitIn(transaction, change);
        if (outcome !== undefined && role !== undefined) await countOutcomeIn(transaction, role, change.id, outcome, now);
      }, options, WAKES);
    });
  }

  listJobs(filter: JobFilter = {}, options?: StoreCallOptions): Promise<JobRow[]> {
    return this.#call(options, async () => {
      const { limit = 100, offset = 0 } = filter;
      checkCount("listJobs", "limit", limit);
      checkCount("listJobs", "offset", offset);
      const statuses = filter.status === undefined ? undefined : Array.isArray(filter.status) ? filter.status : [filter.status];
      if (statuses?.length === 0) return [];
      for (const status of statuses ?? []) {
        if (!isJobStatus(status)) throw new TypeError(`listJobs: unknown status ${JSON.stringify(status)}`);
      }
      const rows = await this.#adapter.readJobs({
        limit, offset, ...(statuses ? { statuses } : {}), ...(filter.role === undefined ? {} : { role: filter.role }),
        ...(filter.parentId === undefined ? {} : { parentId: filter.parentId }),
      });
      return rows.map(decodeJob);
    });
  }

  browseJobs(query: JobBrowseQuery = {}, options?: StoreCallOptions): Promise<JobRow[]> {
    return this.#call(options, async () => {
      const page = toJobPageQuery(query);
      if (page === null) return [];
      const rows = (await this.#adapter.readJobPage(page)).map(decodeJob);
      // A page before a cursor is read oldest first (so the limit keeps the rows nearest the cursor).
      return page.after === undefined ? rows : rows.reverse();
    });
  }

  countJobs(query: JobCountQuery = {}, options?: StoreCallOptions): Promise<Record<JobStatus, number>> {
    return this.#call(options, async () => {
      const counts: Record<JobStatus, number> = { READY: 0, WARMING_UP: 0, STARTED: 0, SUSPENDED: 0, DONE: 0, FAILED: 0, CANCELLED: 0 };
      for (const row of await this.#adapter.countJobsByStatus(toCountQuery(query))) {
        const status = row["status"];
        // A status this version does not know (a damaged row) is no count anyone can act on: left out.
        if (isJobStatus(status)) counts[status] = readInteger(row["count"]);
      }
      return counts;
    });
  }

  claimJob(jobId: string, owner: string, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null> {
    return this.#call(options, () => {
      checkId("claimJob", "jobId", jobId);
      checkClaim("claimJob", owner, leaseMs);
      return this.#write((transaction) => claimJobIn(transaction, jobId, owner, leaseMs), options);
    });
  }

  claimRunnable(owner: string, leaseMs: number, limit: number, filter: ClaimFilter = {}, options?: StoreCallOptions): Promise<Lease[]> {
    return this.#call(options, async () => {
      checkClaim("claimRunnable", owner, leaseMs);
      checkCount("claimRunnable", "limit", limit);
      checkRoles("claimRunnable", filter.roles);
      if (limit === 0 || filter.roles?.length === 0) return [];
      return this.#write((transaction) => claimRunnableIn(transaction, owner, leaseMs, limit, filter), options);
    });
  }

  nextClaim(filter: ClaimFilter = {}, options?: StoreCallOptions): Promise<NextClaim> {
    return this.#call(options, async () => {
      checkRoles("nextClaim", filter.roles);
      if (filter.roles?.length === 0) return { inMs: null, leased: false };
      const row = await this.#adapter.readNextClaim(filter.roles);
      // Not one job's record: an unreadable time names the query.
      const read = (field: string) => {
        const value = row[field];
        return value === null || value === undefined ? null : readStrict(row, field, readInteger, { jobId: "(claimable jobs)", prefix: "jobs" });
      };
      const now = read("now") ?? 0;
      const wakeAt = read("wakeAt");
      const leaseUntil = read("leaseUntil");
      const leased = leaseUntil !== null;
      if (row["runnable"] !== null && row["runnable"] !== undefined) return { inMs: 0, leased };
      const times = [wakeAt, leaseUntil].filter((time) => time !== null);
      return { inMs: times.length === 0 ? null : Math.max(0, Math.min(...times) - now), leased };
    });
  }

  leaseOwners(options?: StoreCallOptions): Promise<string[]> {
    return this.#call(options, async () => {
      const rows = await this.#adapter.readLeaseOwners(await this.#adapter.now());
      // Not one job's record: an unreadable owner names the column.
      return rows.map((row) => readStrict(row, "leaseOwner", readText, { jobId: "(leased jobs)", prefix: "jobs" }));
    });
  }

  expireLeases(owner: string, options?: StoreCallOptions): Promise<number> {
    return this.#call(options, async () => {
      checkId("expireLeases", "owner", owner);
      return this.#write(async (transaction) => transaction.expireLeasesOf(owner, await transaction.now()), options, WAKES);
    });
  }

  preemptJob(jobId: string, owner: string, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null> {
    return this.#call(options, () => {
      checkId("preemptJob", "jobId", jobId);
      checkClaim("preemptJob", owner, leaseMs);
      return this.#write((transaction) => claimJobIn(transaction, jobId, owner, leaseMs, true), options);
    });
  }

  renewLease(jobId: string, fence: Fence, leaseMs: number, options?: StoreCallOptions): Promise<Lease | null> {
    return this.#call(options, () => {
      checkFenceShape("renewLease", fence);
      checkClaim("renewLease", fence.owner, leaseMs);
      return this.#write((transaction) => renewIn(transaction, jobId, fence, leaseMs), options);
    });
  }

  releaseLease(jobId: string, fence: Fence, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => {
      checkFenceShape("releaseLease", fence);
      return this.#write((transaction) => releaseIn(transaction, jobId, fence), options, WAKES);
    });
  }

  getLease(jobId: string, options?: StoreCallOptions): Promise<Lease | null> {
    return this.#call(options, async () => {
      const row = await this.#adapter.readJob(jobId);
      return row === undefined ? null : toLease(jobId, decodeLease(row));
    });
  }

  appendJournal(jobId: string, fence: Fence, cell: number, entries: JournalEntry[], options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => {
      const call = `appendJournal to job ${jobId}`;
      checkId("appendJournal", "jobId", jobId);
      checkFenceShape(call, fence);
      checkJournalEntries(call, cell, entries);
      return this.#write((transaction) => appendJournalIn(transaction, jobId, fence, cell, entries), options);
    });
  }

  getJournal(jobId: string, options?: StoreCallOptions): Promise<Journal | null> {
    return this.#call(options, async () => {
      const rows = await this.#adapter.readJournal(jobId);
      if (rows.length === 0) return null;
      const cells = new Set(rows.map((row) => readStrict(row, "cell", readInteger, { jobId, prefix: `journal[${String(row["index"])}]` })));
      if (cells.size !== 1) {
        throw new CorruptRecordError({ jobId, location: "journal", cause: new Error(`entries of cells ${[...cells].join(", ")} in one journal`) });
      }
      return { cell: [...cells][0]!, entries: rows.map((row) => decodeJournalEntry(jobId, row)) };
    });
  }

  createFutures(jobId: string, fence: Fence, futures: NewFuture[], options?: StoreCallOptions): Promise<void> {
    return this.#call(options, () => {
      const call = `createFutures for job ${jobId}`;
      checkId("createFutures", "jobId", jobId);
      checkFenceShape(call, fence);
      checkNewFutures(call, jobId, futures);
      return this.#write((transaction) => createFuturesFenced(transaction, jobId, fence, futures), options);
    });
  }

  settleFuture(key: string, settlement: FutureSettlement, options?: StoreCallOptions): Promise<SettleResult> {
    return this.#call(options, async () => {
      checkSettlement(key, settlement);
      const result = await this.#write((transaction) => settleIn(transaction, key, settlement), options, WAKES);
      return result;
    });
  }

  getFuture(key: string, options?: StoreCallOptions): Promise<FutureRow | null> {
    return this.#call(options, async () => {
      const row = await this.#adapter.readFuture(key);
      return row === undefined ? null : decodeFuture(row);
    });
  }

  listFutures(jobId: string, filter: { state?: FutureState } = {}, options?: StoreCallOptions): Promise<FutureRow[]> {
    return this.#call(options, async () => {
      if (filter.state !== undefined && !FUTURE_STATES.includes(filter.state)) {
        throw new TypeError(`listFutures: unknown state ${JSON.stringify(filter.state)} (expected one of ${FUTURE_STATES.join(", ")})`);
      }
      return (await this.#adapter.readFutures(jobId, filter.state)).map(decodeFuture);
    });
  }

  waitingFutures(query: { kind: FutureKind; limit?: number }, options?: StoreCallOptions): Promise<FutureRow[]> {
    return this.#call(options, async () => {
      const { kind, limit = 1000 } = query ?? {};
      if (!FUTURE_KINDS.includes(kind)) throw new TypeError(`waitingFutures: unknown kind ${JSON.stringify(kind)} (expected one of ${FUTURE_KINDS.join(", ")})`);
      checkCount("waitingFutures", "limit", limit);
      return (await this.#adapter.readWaitingFutures(kind, limit)).map(decodeFuture);
    });
  }

  readEvents(query: EventQuery = {}, options?: StoreCallOptions): Promise<JobEventRow[]> {
    return this.#call(options, async () => {
      const { afterId = 0, limit = 1000 } = query;
      checkCount("readEvents", "afterId", afterId);
      checkCount("readEvents", "limit", limit);
      if (limit === 0) return [];
      const rows = await this.#adapter.readEvents({ afterId, limit, ...(query.jobId === undefined ? {} : { jobId: query.jobId }) });
      return rows.map(decodeEvent);
    });
  }

  lastEventId(options?: StoreCallOptions): Promise<number> {
    return this.#call(options, async () => {
      const value = await this.#adapter.readLastEventId();
      return value === null || value === undefined ? 0 : readInteger(value);
    });
  }

  pruneEvents(query: { before: number; limit?: number }, options?: StoreCallOptions): Promise<number> {
    return this.#call(options, async () => {
      if (typeof query !== "object" || query === null) throw new TypeError("pruneEvents: expected { before, limit? }");
      const { before, limit = 10_000 } = query;
      checkCount("pruneEvents", "before", before);
      checkCount("pruneEvents", "limit", limit);
      if (limit === 0) return 0;
      return this.#write((transaction) => transaction.deleteEventsBefore(before, limit), options);
    });
  }

  appendEvents(events: Array<NewJobEvent & { jobId: string }>, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, async () => {
      checkEvents("appendEvents", events, true);
      if (events.length === 0) return;
      await this.#write((transaction) => appendEventsIn(transaction, events), options, WAKES);
    });
  }

  followEvents(follower: EventFollower, options: FollowOptions = {}): EventFollow {
    if (typeof follower !== "object" || follower === null || typeof follower.onEvents !== "function") {
      throw new TypeError("followEvents: expected a follower such as { onEvents(events) {} }");
    }
    if (typeof options !== "object" || options === null) throw new TypeError("followEvents: options must be an object such as { jobId }");
    if (options.afterId !== undefined) checkCount("followEvents", "afterId", options.afterId);
    if (options.jobId !== undefined) checkId("followEvents", "jobId", options.jobId);
    if (this.#closing !== undefined) throw new Error(`store is closed (${this.storeName})`);
    return this.#outbox.follow(follower, options);
  }

  readMemory(contexts: readonly string[], options?: StoreCallOptions): Promise<MemoryEntry[]> {
    return this.#call(options, async () => {
      checkMemoryContexts(contexts);
      if (contexts.length === 0) return [];
      return (await this.#adapter.readMemory([...new Set(contexts)])).map(decodeMemory);
    });
  }

  putMemory(entry: MemoryEntry, options?: StoreCallOptions): Promise<void> {
    return this.#call(options, async () => {
      checkMemoryEntry(entry);
      const { context, key, category, value, description, createdAt, updatedAt } = entry;
      await this.#write((transaction) => transaction.upsertMemory({ context, key, category, value: JSON.stringify(value), description, createdAt, updatedAt }), options);
    });
  }

  deleteMemory(context: string, key: string, options?: StoreCallOptions): Promise<boolean> {
    return this.#call(options, async () => {
      checkMemoryKey(context, key);
      return this.#write((transaction) => transaction.deleteMemory(context, key), options);
    });
  }

  pushAgentEvent(role: string, blob: string, options?: StoreCallOptions): Promise<number> {
    return this.#call(options, () => {
      checkRole("pushAgentEvent", role);
      if (typeof blob !== "string") throw new TypeError("pushAgentEvent: blob must be a string (the event as the job runner encoded it)");
      return this.#write((transaction) => pushAgentEventIn(transaction, role, blob), options, WAKES);
    });
  }

  createAgentJobs(request: AgentJobsRequest, options?: StoreCallOptions): Promise<AgentJobsResult> {
    return this.#call(options, async () => {
      checkAgentJobsRequest(request);
      return this.#write((transaction) => createAgentJobsIn(transaction, request), options, WAKES);
    });
  }

  agents(roles?: readonly string[], options?: StoreCallOptions): Promise<AgentRow[]> {
    return this.#call(options, async () => {
      checkRoles("agents", roles);
      if (roles?.length === 0) return [];
      const [rows, counts] = await Promise.all([this.#adapter.readAgents(roles), this.#adapter.countAgentEvents(roles)]);
      const queued = new Map(counts.map((row) => [readText(row["role"]), readInteger(row["count"])]));
      const byRole = new Map(rows.map((row) => [readText(row["role"]), row]));
      const all = roles ?? [...new Set([...byRole.keys(), ...queued.keys()])].sort();
      return [...new Set(all)].map((role) => {
        const row = byRole.get(role) ?? { role, state: "closed", reason: null, openedAt: null, failures: 0, loopSize: null, loopAt: null };
        return decodeAgent(row, queued.get(role) ?? 0);
      });
    });
  }

  resetAgent(role: string, options?: StoreCallOptions): Promise<boolean> {
    return this.#call(options, () => {
      checkRole("resetAgent", role);
      return this.#write((transaction) => resetAgentIn(transaction, role), options, WAKES);
    });
  }

  peekAgentEvents(role: string, limit = 100, options?: StoreCallOptions): Promise<AgentEventRow[]> {
    return this.#call(options, async () => {
      checkRole("peekAgentEvents", role);
      checkCount("peekAgentEvents", "limit", limit);
      return (await this.#adapter.readAgentEvents(role, limit)).map(decodeAgentEvent);
    });
  }

  /** Waits for every call already made (queued writes included), then closes the connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#outbox.close();
      this.#wakeupListeners.clear();
      this.#stopWakeups();
      await Promise.allSettled([...this.#inFlight]);
      await this.#adapter.close();
    })();
    return this.#closing;
  }

  subscribeWakeups(listener: (origin: WakeupOrigin) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("subscribeWakeups: expected a function");
    if (this.#closing !== undefined) throw new Error(`store is closed (${this.storeName})`);
    this.#wakeupListeners.add(listener);
    this.#stopWatching ??= this.#adapter.watchWakeups?.(() => this.#wakeUp("remote"));
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#wakeupListeners.delete(listener);
      if (this.#wakeupListeners.size === 0) this.#stopWakeups();
    };
  }

  #stopWakeups(): void {
    const stop = this.#stopWatching;
    this.#stopWatching = undefined;
    stop?.();
  }

  /**
   * Calls every wake-up listener once per origin heard in this turn, in a microtask: a group commit's hint is
   * queued before its writes' promises resolve, so listeners hear it before the writers go on. A listener that
   * throws is ignored.
   */
  #wakeUp(origin: WakeupOrigin): void {
    if (this.#wakeupListeners.size === 0) return;
    if (this.#pendingOrigins.size === 0) {
      queueMicrotask(() => {
        const origins = [...this.#pendingOrigins];
        this.#pendingOrigins.clear();
        for (const heard of origins) {
          for (const listener of [...this.#wakeupListeners]) {
            try {
              listener(heard);
            } catch {
              // A hint's listener must not break the store's other listeners.
            }
          }
        }
      });
    }
    this.#pendingOrigins.add(origin);
  }

  #write<T>(apply: (transaction: AdapterTransaction) => Promise<T>, options: StoreCallOptions | undefined, wakes = false): Promise<T> {
    return this.#writes.enqueue(apply, options?.signal, wakes);
  }

  /** Runs `body` once the store is migrated, classifies its errors, and tracks it so that `close()` can wait. */
  #call<T>(options: StoreCallOptions | undefined, body: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`store is closed (${this.storeName})`));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const promise = this.#ready()
      .then(() => {
        signal?.throwIfAborted();
        return body();
      })
      .catch((error: unknown) => {
        throw this.#adapter.classifyError(error);
      });
    this.#inFlight.add(promise);
    const forget = () => this.#inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  #ready(): Promise<void> {
    if (this.#migrated) return Promise.resolve();
    this.#migrating ??= this.#adapter.migrate().then(
      () => {
        this.#migrated = true;
      },
      (error: unknown) => {
        this.#migrating = undefined; // the next call tries again, and fails the same way
        throw error;
      },
    );
    return this.#migrating;
  }
}
