/**
 * @module
 * The one owner of a step's durability: it holds the job's lease, renews it at a quarter of its
 * length, writes the cell's journal (fenced by the lease's epoch, so a worker that lost the lease can never
 * write), makes the final commit fenced too — and holds back everything that reaches the outside world (an
 * `onMessage` callback, events, a child job's start) until the write that records it is durable. A step whose
 * lease is lost is aborted: its cell stops and it writes nothing.
 */
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { LeaseLostError } from "../../errors/lease-lost-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import type { Fence, JobCommit, JournalEntry, Lease, Store } from "../../store/store.ts";
import { encodeJournalItem, type JournalItem } from "../../workspace/cell-journal.ts";
import { withStoreRetries } from "../../store/store-retries.ts";
import type { JournalSink } from "../../workspace/cell-host.ts";

/** How long a step's lease lasts unless renewed. @default 30 s */
export const DEFAULT_LEASE_MS = 30_000;

/** A lease that went unrenewed for longer than it lasts: the event loop stalled (or the process was stopped). */
export interface LateLease {
  jobId: string;
  /** How long the lease had gone without a renewal when this was noticed. */
  unrenewedMs: number;
  /** How long the lease lasts. */
  leaseMs: number;
}

/** How a step transaction runs. */
export interface StepTransactionOptions {
  /** How long the lease lasts unless renewed; it is renewed at a quarter of that. Whoever claimed it says. */
  leaseMs: number;
  /** Aborts the step (its caller gave up, a worker is stopping). */
  signal?: AbortSignal;
  /**
   * Told, once, when the lease went unrenewed for longer than it lasts: another worker may have taken the job
   * over meanwhile (the step's next write then fails, and the job's next step finds its calls in doubt).
   */
  onLate?: (late: LateLease) => void;
}

/** A step of one job under its lease. */
export class StepTransaction implements JournalSink {
  readonly store: Store;
  readonly lease: Lease;
  readonly #leaseMs: number;
  readonly #onLate: ((late: LateLease) => void) | undefined;
  /** When the lease was last known to hold for `leaseMs` more (claimed or renewed), by this process's clock. */
  #renewedAt = Date.now();
  #reportedLate = false;
  readonly #abort = new AbortController();
  readonly #renewal: NodeJS.Timeout;
  readonly #after: Array<() => void | Promise<void>> = [];
  #cell = 0;
  #journalCell: number | undefined;
  #nextIndex = 0;
  #buffer: JournalEntry[] = [];
  /** Items appended to each part of the current cell's journal by this step. */
  #appended = new Map<string, number>();
  /** The job's journal is empty: a commit of ours cleared it, under this lease, and nothing was written since. */
  #journalEmpty = false;
  #writing: Promise<void> = Promise.resolve();
  #lost: Error | undefined;
  #closed = false;
  /** Committed or abandoned: the lease is no longer this transaction's to release. */
  #ended = false;

  private constructor(store: Store, lease: Lease, options: StepTransactionOptions) {
    this.store = store;
    this.lease = lease;
    const { leaseMs, signal: outer } = options;
    this.#leaseMs = leaseMs;
    this.#onLate = options.onLate;
    if (outer?.aborted) this.#abort.abort(outer.reason);
    outer?.addEventListener("abort", () => this.#abort.abort(outer.reason), { once: true });
    this.#renewal = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 4)));
    this.#renewal.unref();
  }

  /** Claims job `jobId` for `owner`: the transaction, or `null` when another worker holds a live lease on it. */
  static async begin(store: Store, jobId: string, owner: string, options: StepTransactionOptions): Promise<StepTransaction | null> {
    const lease = await store.claimJob(jobId, owner, options.leaseMs);
    return lease ? new StepTransaction(store, lease, options) : null;
  }

  /**
   * Takes job `jobId` for `owner` even from another worker's live lease (an operator cancelling it): that
   * worker's next write fails and its step stops. `null` for a final or unknown job.
   */
  static async preempt(store: Store, jobId: string, owner: string, options: StepTransactionOptions): Promise<StepTransaction | null> {
    const lease = await store.preemptJob(jobId, owner, options.leaseMs);
    return lease ? new StepTransaction(store, lease, options) : null;
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
   * quarter of `leaseMs` — the length the caller claimed it for — and released by `commit` or `abandon` like one
   * that {@link StepTransaction.begin} claimed.
   */
  static adopt(store: Store, lease: Lease, options: StepTransactionOptions): StepTransaction {
    return new StepTransaction(store, lease, options);
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
    this.#appended = new Map();
    return this;
  }

  append(items: readonly JournalItem[]): void {
    this.appendPart(items, "");
  }

  /** Appends items of one part of the step (formal calls and cells of one response share the journal). */
  appendPart(items: readonly JournalItem[], part: string): void {
    for (const item of items) this.#buffer.push({ index: this.#nextIndex++, data: encodeJournalItem(item, part) });
    if (items.length) this.#appended.set(part, (this.#appended.get(part) ?? 0) + items.length);
  }

  /** How many items this step appended to each part of the current cell's journal. */
  get appendedByPart(): ReadonlyMap<string, number> {
    return this.#appended;
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

  // A method, not an inline check: the compiler would keep `#lost` narrowed to undefined across the await.
  #throwIfLost(): void {
    if (this.#lost) throw this.#lost;
  }

  /**
   * The step's final write: fenced, releasing the lease — or, with `keepLease`, keeping it (and renewing it)
   * for the caller's next step of the same job, which then needs no claim of its own: one durable write per
   * step instead of two. Then the held-back effects run, in order; one that throws does not stop the others.
   */
  async commit(change: JobCommit, options: { keepLease?: boolean } = {}): Promise<void> {
    this.#throwIfLost();
    // A commit that clears the journal deletes what it holds, so items still buffered are not written first: a
    // write of its own per step, undone by the next. Left unwritten, they are what a crash just before this
    // commit would leave unwritten too — never an effect's intent or result, which are durable before it runs
    // and before the guest reads it.
    if (change.clearJournal) this.#buffer = [];
    await this.flush().catch(() => undefined);
    this.#throwIfLost();
    // Deleting what is known to be empty is a statement per step saved.
    const clearsJournal = change.clearJournal === true;
    if (clearsJournal && this.#journalEmpty) change = { ...change, clearJournal: false };
    // An aborted step (its caller gave up, a worker is stopping) commits nothing, whatever its cell made of the
    // abort: the job stays as it was and the next step replays the journal.
    this.signal.throwIfAborted();
    this.#checkLate();
    const keep = options.keepLease === true;
    try {
      await this.store.commit({ ...change, fence: this.fence, releaseLease: !keep });
      if (!keep) this.#ended = true;
    } catch (error) {
      this.#fail(error);
      // A commit that lost to a client's write (rebased and made again) or met a busy store (tried again) keeps
      // its lease renewed meanwhile; anything else ends the renewals (the caller abandons the step).
      if (!(error instanceof JobConflictError) && !StoreError.isTransient(error)) this.close();
      throw error;
    }
    this.#committed(keep, clearsJournal);
    await this.#runAfter();
  }

  /**
   * Takes a commit whose answer was lost (the connection dropped as it committed) as made, once the job shows
   * it was: the lease is the commit's (released or kept), and the held-back effects run.
   */
  async landed(options: { keepLease?: boolean; clearedJournal?: boolean } = {}): Promise<void> {
    const keep = options.keepLease === true;
    if (!keep) this.#ended = true;
    this.#committed(keep, options.clearedJournal === true);
    await this.#runAfter();
  }

  #committed(keep: boolean, clearsJournal: boolean): void {
    if (keep) this.#nextStep(clearsJournal || this.#journalEmpty);
    else this.close();
  }

  async #runAfter(): Promise<void> {
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
    this.#appended = new Map();
    this.#nextIndex = 0;
  }

  /**
   * Confirms the lease before something no fenced write guards and nothing takes back — a paid model call. A
   * renewal is made first only when the last one is older than half the lease (the process was stopped or its
   * event loop stalled meanwhile, so another worker may hold the job by now); then a lost lease throws
   * `LeaseLostError` (and stops the step) instead of the call being made.
   */
  async confirmHeld(): Promise<void> {
    this.#throwIfLost();
    if (Date.now() - this.#renewedAt <= this.#leaseMs / 2) return;
    this.#checkLate();
    const asked = Date.now();
    let renewed;
    try {
      renewed = await withStoreRetries(() => this.store.renewLease(this.lease.jobId, this.fence, this.#leaseMs), { signal: this.signal });
    } catch (error) {
      // The store is down past the retries: the step stops here, its job as it was, to be stepped again.
      if (!this.#abort.signal.aborted) this.#abort.abort(error);
      throw error;
    }
    if (!renewed) this.#fail(new LeaseLostError({ jobId: this.lease.jobId, owner: this.lease.owner, epoch: this.lease.epoch, currentOwner: null, currentEpoch: -1 }));
    else this.#renewedAt = Math.max(this.#renewedAt, asked);
    this.#throwIfLost();
  }

  /** Stops renewing the lease. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#renewal);
  }

  async #renew(): Promise<void> {
    if (this.#closed || this.#lost) return;
    this.#checkLate();
    const asked = Date.now();
    try {
      const renewed = await this.store.renewLease(this.lease.jobId, this.fence, this.#leaseMs);
      if (!renewed) this.#fail(new LeaseLostError({ jobId: this.lease.jobId, owner: this.lease.owner, epoch: this.lease.epoch, currentOwner: null, currentEpoch: -1 }));
      else this.#renewedAt = asked;
    } catch {
      // A transient failure to renew is tried again at the next quarter; the lease is only lost if it moved.
    }
  }

  /**
   * Reports, once, a lease left unrenewed for longer than it lasts (the event loop stalled past it, the process
   * was stopped): never a silent takeover of a step that believes it still holds its job.
   */
  #checkLate(): void {
    const unrenewedMs = Date.now() - this.#renewedAt;
    if (this.#reportedLate || unrenewedMs <= this.#leaseMs) return;
    this.#reportedLate = true;
    try {
      this.#onLate?.({ jobId: this.lease.jobId, unrenewedMs, leaseMs: this.#leaseMs });
    } catch {
      // A listener's failure is its own.
    }
  }

  #fail(error: unknown): void {
    if (!(error instanceof LeaseLostError) || this.#lost) return;
    this.#lost = error;
    this.#abort.abort(error);
  }
}
