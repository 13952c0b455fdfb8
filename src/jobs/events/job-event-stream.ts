/**
 * @module
 * `statek.events()`: an async iterator of job events (`job-events.ts`), in order. Recorded events come from the
 * store's outbox through its one reader (`Store.followEvents`: this store object's commits heard at once,
 * other processes' through the store's wake-up hints); live events (model text) are heard from this process's
 * steps as they stream, placed after every recorded event this process had heard of by then.
 */
import type { EventFollow, JobEventRow, Store } from "../../store/store.ts";
import type { JobEvent, LiveJobEvent } from "./job-events.ts";
import { decodeEvent } from "./outbox-events.ts";

/** Which events {@link JobEventStream} yields, and from where. */
export interface JobEventFilter {
  /** Only this job's events; they start with the job's first recorded event (unless `afterId` says otherwise). */
  jobId?: string;
  /**
   * Only recorded events after this outbox id (an event's `id`: resume where a reader stopped). Without it and
   * without `jobId`, the stream starts with what happens after the call.
   */
  afterId?: number;
}

/** The live events of one process, for the streams open in it. */
export class LiveEventHub {
  readonly #listeners = new Set<(event: LiveJobEvent) => void>();
  readonly #streams = new Set<JobEventStream>();

  /** Hands `event` to every open stream. */
  emit(event: LiveJobEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Opens a stream of `store`'s events (see {@link JobEventFilter}). */
  open(store: Store, filter: JobEventFilter = {}): JobEventStream {
    const stream = new JobEventStream(store, this, checkFilter(filter));
    this.#streams.add(stream);
    return stream;
  }

  /** Ends every open stream (their pending `next()` calls resolve as done). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#streams].map((stream) => stream.return()));
  }

  /** @internal Used by the streams. */
  listen(listener: (event: LiveJobEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** @internal Used by the streams. */
  forget(stream: JobEventStream): void {
    this.#streams.delete(stream);
  }
}

function checkFilter(filter: unknown): JobEventFilter {
  if (typeof filter !== "object" || filter === null) throw new TypeError("events: the filter must be an object such as { jobId }");
  const { jobId, afterId, pollMs } = filter as Record<string, unknown>;
  if (pollMs !== undefined) {
    throw new TypeError("events: pollMs is not an option of events(): the store's wake-up subscription says when another process committed " +
      "(SQLite: createSqliteStore({ path, pollIntervalMs }), 25 ms by default; PostgreSQL: LISTEN/NOTIFY)");
  }
  const checked: JobEventFilter = {};
  if (jobId !== undefined) {
    if (typeof jobId !== "string" || jobId === "") throw new TypeError("events: jobId must be a non-empty string");
    checked.jobId = jobId;
  }
  if (afterId !== undefined) {
    if (typeof afterId !== "number" || !Number.isSafeInteger(afterId) || afterId < 0) throw new TypeError("events: afterId must be a non-negative integer (an event's id)");
    checked.afterId = afterId;
  }
  return checked;
}

/**
 * One reader's stream of job events. Iterate it with `for await`; leaving the loop (or calling `return()`)
 * stops it listening. A store failure that persists ends the iteration with that error.
 */
export class JobEventStream implements AsyncIterableIterator<JobEvent> {
  readonly #hub: LiveEventHub;
  readonly #jobId: string | undefined;
  readonly #queue: JobEvent[] = [];
  readonly #waiters: Array<{ resolve: (result: IteratorResult<JobEvent>) => void; reject: (error: unknown) => void }> = [];
  readonly #stopListening: () => void;
  readonly #follow: EventFollow;
  /** Live events are pushed in this chain's order, each after the recorded events heard before it. */
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;

  /** Use {@link LiveEventHub.open} (`statek.events()`). */
  constructor(store: Store, hub: LiveEventHub, filter: JobEventFilter) {
    this.#hub = hub;
    this.#jobId = filter.jobId;
    const afterId = filter.afterId ?? (filter.jobId !== undefined ? 0 : undefined);
    this.#follow = store.followEvents(
      { onEvents: (rows) => this.#take(rows), onError: (error) => this.#fail(error) },
      { ...(afterId === undefined ? {} : { afterId }), ...(filter.jobId === undefined ? {} : { jobId: filter.jobId }) },
    );
    this.#stopListening = hub.listen((event) => {
      if (this.#jobId !== undefined && event.jobId !== this.#jobId) return;
      this.#tail = this.#tail.then(() => this.#follow.caughtUp()).then(() => this.#push(event), () => this.#push(event));
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event, waiting for one if there is none yet. */
  next(): Promise<IteratorResult<JobEvent>> {
    const value = this.#queue.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops listening; pending and later `next()` calls resolve as done. */
  async return(): Promise<IteratorResult<JobEvent>> {
    this.#close();
    this.#queue.length = 0;
    return { value: undefined, done: true };
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#follow.stop();
    this.#stopListening();
    this.#hub.forget(this);
    for (const waiter of this.#waiters.splice(0)) {
      if (this.#failure !== undefined) waiter.reject(this.#failure);
      else waiter.resolve({ value: undefined, done: true });
    }
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    this.#failure = error;
    this.#close();
  }

  #push(event: JobEvent): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: event, done: false });
    else this.#queue.push(event);
  }

  #take(rows: readonly JobEventRow[]): void {
    for (const row of rows) this.#push(decodeEvent(row));
  }
}
