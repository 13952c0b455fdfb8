/**
 * @module
 * The one owner of a step's durability (DESIGN.md §3): it holds the job's lease, renews it at a quarter of its
 * length, writes the cell's journal (fenced by the lease's epoch, so a worker that lost the lease can never
 * write), makes the final commit fenced too — and holds back everything that reaches the outside world (an
 * `onMessage` callback, events, a child job's start) until the write that records it is durable. A step whose
 * lease is lost is aborted: its cell stops and it writes nothing.
 */
import { LeaseLostError } from "../../errors/lease-lost-error.ts";
import type { Fence, JobCommit, JournalEntry, Lease, Store } from "../../store/store.ts";
import { encodeJournalItem, type JournalItem } from "../../workspace/cell-journal.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import type { JournalSink } from "../../workspace/cell-host.ts";

/** How long a step's lease lasts unless renewed. @default 30 s */
export const DEFAULT_LEASE_MS = 30_000;

/** A step of one job under its lease. */
export class StepTransaction implements JournalSink {
  readonly store: Store;
  readonly lease: Lease;
  readonly #leaseMs: number;
  readonly #abort = new AbortController();
  readonly #renewal: NodeJS.Timeout;
  readonly #after: Array<() => void | Promise<void>> = [];
  #cell = 0;
  #journalCell: number | undefined;
  #nextIndex = 0;
  #buffer: JournalEntry[] = [];
  /** The job's journal is empty: a commit of ours cleared it, under this lease, and nothing was written since. */
  #journalEmpty = false;
  #writing: Promise<void> = Promise.resolve();
  #lost: Error | undefined;
  #closed = false;
  /** Committed or abandoned: the lease is no longer this transaction's to release. */
  #ended = false;

  private constructor(store: Store, lease: Lease, leaseMs: number, outer: AbortSignal | undefined) {
    this.store = store;
    this.lease = lease;
    this.#leaseMs = leaseMs;
    if (outer?.aborted) this.#abort.abort(outer.reason);
    outer?.addEventListener("abort", () => this.#abort.abort(outer.reason), { once: true });
    this.#renewal = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 4)));
    this.#renewal.unref();
  }

  /** Claims job `jobId` for `owner`: the transaction, or `null` when another worker holds a live lease on it. */
  static async begin(store: Store, jobId: string, owner: string, options: { leaseMs?: number; signal?: AbortSignal } = {}): Promise<StepTransaction | null> {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const lease = await store.claimJob(jobId, owner, leaseMs);
    return lease ? new StepTransaction(store, lease, leaseMs, options.signal) : null;
  }

  /**
   * Takes job `jobId` for `owner` even from another worker's live lease (an operator cancelling it): that
   * worker's next write fails and its step stops. `null` for a final or unknown job.
   */
  static async preempt(store: Store, jobId: string, owner: string, options: { leaseMs?: number; signal?: AbortSignal } = {}): Promise<StepTransaction | null> {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const lease = await store.preemptJob(jobId, owner, leaseMs);
    return lease ? new StepTransaction(store, lease, leaseMs, options.signal) : null;
  }

  /**
   * Stops the step at once: its lease was taken in this process (`cancelJob` preempted it), so it must write
   * nothing more. Every write it tries would be refused anyway; this saves it running on until then.
   */
  revoke(by: Lease): void {
    this.#fail(new LeaseLostError({ jobId: this.lease.jobId, owner: this.lease.owner, epoch: this.lease.epoch, currentOwner: by.owner, currentEpoch: by.epoch }));
  }

  /** True once the lease was lost (taken over, or a fenced write refused): the step writes nothing more. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /**
   * A transaction over a lease its caller claimed already (a worker's `claimRunnable`): renewed from now on at a
   * quarter of `leaseMs`, released by `commit` or `abandon` like one that {@link StepTransaction.begin} claimed.
   */
  static adopt(store: Store, lease: Lease, options: { leaseMs?: number; signal?: AbortSignal } = {}): StepTransaction {
    return new StepTransaction(store, lease, options.leaseMs ?? DEFAULT_LEASE_MS, options.signal);
  }

  /** The fence every write of the step carries. */
  get fence(): Fence {
    return { owner: this.lease.owner, epoch: this.lease.epoch };
  }

  /** Aborted when the lease is lost (or the step's caller aborts): the step must stop and write nothing. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * The journal of cell `cell` holds `length` items already (a resumed cell): new items continue it. Several
   * parts of one step (formal calls, cells) share the journal: only the first call sets where it starts.
   */
  journalFor(cell: number, length: number): this {
    if (this.#journalCell === cell) return this;
    this.#journalCell = cell;
    this.#cell = cell;
    this.#nextIndex = length;
    this.#buffer = [];
    return this;
  }

  append(items: readonly JournalItem[]): void {
    this.appendPart(items, "");
  }

  /** Appends items of one part of the step (formal calls and cells of one response share the journal). */
  appendPart(items: readonly JournalItem[], part: string): void {
    for (const item of items) this.#buffer.push({ index: this.#nextIndex++, data: encodeJournalItem(item, part) });
  }

  /** Writes the journal appended so far (fenced, group-committed by the store); rejects once the lease is lost. */
  flush(): Promise<void> {
    if (this.#lost) return Promise.reject(this.#lost);
    const entries = this.#buffer;
    this.#buffer = [];
    if (entries.length) {
      this.#journalEmpty = false;
      const { jobId } = this.lease;
      // A busy store is waited out (a transient failure is never the job's); a lost lease stops the step.
      const cell = this.#cell;
      this.#writing = this.#writing.then(() => withStoreRetries(() => this.store.appendJournal(jobId, this.fence, cell, entries), { signal: this.signal })).catch((error: unknown) => {
        this.#fail(error);
        throw error;
      });
    }
    return this.#writing;
  }

  /** Runs `effect` once the step's commit is durable (never when the step does not commit). */
  afterCommit(effect: () => void | Promise<void>): void {
    this.#after.push(effect);
  }

  /**
   * The step's final write: fenced, releasing the lease — or, with `keepLease`, keeping it (and renewing it)
   * for the caller's next step of the same job, which then needs no claim of its own: one durable write per
   * step instead of two. Then the held-back effects run, in order; one that throws does not stop the others.
   */
  async commit(change: JobCommit, options: { keepLease?: boolean } = {}): Promise<void> {
    if (this.#lost) throw this.#lost;
    // A commit that clears the journal deletes what it holds, so items still buffered are not written first: a
    // write of its own per step, undone by the next. Left unwritten, they are what a crash just before this
    // commit would leave unwritten too — never an effect's intent or result, which are durable before it runs
    // and before the guest reads it.
    if (change.clearJournal) this.#buffer = [];
    await this.flush().catch(() => undefined);
    if (this.#lost) throw this.#lost;
    // Deleting what is known to be empty is a statement per step saved.
    const clearsJournal = change.clearJournal === true;
    if (clearsJournal && this.#journalEmpty) change = { ...change, clearJournal: false };
    // An aborted step (its caller gave up, a worker is stopping) commits nothing, whatever its cell made of the
    // abort: the job stays as it was and the next step replays the journal.
    this.signal.throwIfAborted();
    const keep = options.keepLease === true;
    try {
      await this.store.commit({ ...change, fence: this.fence, releaseLease: !keep });
      if (!keep) this.#ended = true;
    } catch (error) {
      this.#fail(error);
      this.close();
      throw error;
    }
    if (keep) this.#nextStep(clearsJournal || this.#journalEmpty);
    else this.close();
    for (const effect of this.#after.splice(0)) {
      try {
        await effect();
      } catch {
        // An effect of a committed step failing (an onMessage callback that throws) changes nothing durable.
      }
    }
  }

  /** Ends the transaction without a commit: the lease is released (if still ours) and held-back effects dropped. */
  async abandon(): Promise<void> {
    // A failed commit closed the transaction but left the lease held: it is released here all the same.
    if (this.#ended) return;
    this.#ended = true;
    this.close();
    this.#after.length = 0;
    // A busy store is waited out: a release that fails leaves the job unclaimable until the lease expires.
    await withStoreRetries(() => this.store.releaseLease(this.lease.jobId, this.fence)).catch(() => undefined);
  }

  /** Whether the next step of the job may run under this transaction's lease (kept by the last commit). */
  get usable(): boolean {
    return !this.#closed && !this.#lost && !this.#abort.signal.aborted;
  }

  /**
   * Whether the job's journal is known to be empty without reading it: the last commit of this transaction
   * cleared it and kept the lease, and nothing has been written to it since. Nobody else can have written to
   * it meanwhile: journal appends are fenced by the lease, and one that moved to another worker fails this
   * step's every write (an effect never runs before its intent is durable), so the step writes nothing.
   */
  get journalKnownEmpty(): boolean {
    return this.#journalEmpty;
  }

  /** After a commit that kept the lease: the next step starts with a journal and effects of its own. */
  #nextStep(journalCleared: boolean): void {
    this.#journalEmpty = journalCleared;
    this.#journalCell = undefined;
    this.#buffer = [];
    this.#nextIndex = 0;
  }

  /** Stops renewing the lease. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#renewal);
  }

  async #renew(): Promise<void> {
    if (this.#closed || this.#lost) return;
    try {
      const renewed = await this.store.renewLease(this.lease.jobId, this.fence, this.#leaseMs);
      if (!renewed) this.#fail(new LeaseLostError({ jobId: this.lease.jobId, owner: this.lease.owner, epoch: this.lease.epoch, currentOwner: null, currentEpoch: -1 }));
    } catch {
      // A transient failure to renew is tried again at the next quarter; the lease is only lost if it moved.
    }
  }

  #fail(error: unknown): void {
    if (!(error instanceof LeaseLostError) || this.#lost) return;
    this.#lost = error;
    this.#abort.abort(error);
  }
}
