/**
 * @module
 * `statek.events()`: an async iterator of job events (`job-events.ts`), in order. Recorded events come from the
 * store's outbox, read by id: this process's writes are heard at once through `store.watchEvents` (no polling),
 * and when the store is shared with other processes a cheap read by id every `pollMs` brings theirs. Live
 * events (model text) are heard from this process's steps as they stream, placed after every recorded event
 * this process had heard of by then.
 */
import type { JobEventRow, Store } from "../../store/store.ts";
import type { JobEvent, LiveJobEvent } from "./job-events.ts";
import { decodeEvent } from "./outbox-events.ts";
import { withStoreRetries } from "../store-retries.ts";

/** Which events {@link JobEventStream} yields, and from where. */
export interface JobEventFilter {
  /** Only this job's events; they start with the job's first recorded event (unless `afterId` says otherwise). */
  jobId?: string;
  /**
   * Only recorded events after this outbox id (an event's `id`: resume where a reader stopped). Without it and
   * without `jobId`, the stream starts with what happens after the call.
   */
  afterId?: number;
  /**
   * How often to look for events other processes recorded, in milliseconds, when the store is shared between
   * processes (a SQLite file). Events of this process never wait for it. @default 200
   */
  pollMs?: number;
}

/** Events read from the outbox at once; a full page is followed by the next at once. */
const PAGE = 500;

/** Default of {@link JobEventFilter.pollMs}. */
export const DEFAULT_EVENT_POLL_MS = 200;

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
  const checked: JobEventFilter = {};
  if (jobId !== undefined) {
    if (typeof jobId !== "string" || jobId === "") throw new TypeError("events: jobId must be a non-empty string");
    checked.jobId = jobId;
  }
  if (afterId !== undefined) {
    if (typeof afterId !== "number" || !Number.isSafeInteger(afterId) || afterId < 0) throw new TypeError("events: afterId must be a non-negative integer (an event's id)");
    checked.afterId = afterId;
  }
  if (pollMs !== undefined) {
    if (typeof pollMs !== "number" || !Number.isInteger(pollMs) || pollMs < 10) throw new TypeError("events: pollMs must be an integer of at least 10 (milliseconds)");
    checked.pollMs = pollMs;
  }
  return checked;
}

/**
 * One reader's stream of job events. Iterate it with `for await`; leaving the loop (or calling `return()`)
 * stops it listening. A store failure that persists ends the iteration with that error.
 */
export class JobEventStream implements AsyncIterableIterator<JobEvent> {
  readonly #store: Store;
  readonly #hub: LiveEventHub;
  readonly #jobId: string | undefined;
  readonly #queue: JobEvent[] = [];
  readonly #waiters: Array<{ resolve: (result: IteratorResult<JobEvent>) => void; reject: (error: unknown) => void }> = [];
  readonly #stops: Array<() => void> = [];
  /** The outbox id up to which recorded events were taken; `undefined` until the starting point is known. */
  #lastId: number | undefined;
  /** Events are applied in this chain's order: reads of the outbox, then live events heard after them. */
  #tail: Promise<void>;
  #failure: unknown;
  #closed = false;
  #poll: NodeJS.Timeout | undefined;

  /** Use {@link LiveEventHub.open} (`statek.events()`). */
  constructor(store: Store, hub: LiveEventHub, filter: JobEventFilter) {
    this.#store = store;
    this.#hub = hub;
    this.#jobId = filter.jobId;
    const start = filter.afterId ?? (filter.jobId !== undefined ? 0 : undefined);
    this.#lastId = start;
    this.#tail = start !== undefined ? Promise.resolve() : withStoreRetries(() => store.lastEventId()).then((id) => void (this.#lastId = id), (error: unknown) => this.#fail(error));
    this.#stops.push(store.watchEvents(() => this.#fetch()));
    this.#stops.push(hub.listen((event) => {
      if (this.#jobId !== undefined && event.jobId !== this.#jobId) return;
      this.#tail = this.#tail.then(() => this.#push(event));
    }));
    if (store.supportsMultipleProcesses) {
      const timer = setInterval(() => this.#fetch(), filter.pollMs ?? DEFAULT_EVENT_POLL_MS);
      // The poll keeps the process alive only while a reader waits for an event (see #waiting).
      timer.unref();
      this.#poll = timer;
      this.#stops.push(() => clearInterval(timer));
    }
    // Events recorded before the stream opened (a job's, or those after `afterId`).
    if (start !== undefined) this.#fetch();
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
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#waiting();
    });
  }

  /** A reader waiting on another process's events must keep this one alive, as a socket read would. */
  #waiting(): void {
    if (this.#waiters.length) this.#poll?.ref();
    else this.#poll?.unref();
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
    for (const stop of this.#stops.splice(0)) stop();
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
    if (waiter) {
      waiter.resolve({ value: event, done: false });
      this.#waiting();
    } else {
      this.#queue.push(event);
    }
  }

  /**
   * Reads what the outbox holds after the last id taken. The read starts now (so it sees exactly what was
   * committed before the live events heard after this point); its rows are applied in turn, skipping ids an
   * overlapping read took already.
   */
  #fetch(): void {
    if (this.#closed) return;
    const read = (afterId: number) => withStoreRetries(() => this.#store.readEvents({ afterId, limit: PAGE, ...(this.#jobId === undefined ? {} : { jobId: this.#jobId }) }));
    const first = this.#lastId === undefined ? this.#tail.then(() => read(this.#lastId ?? 0)) : read(this.#lastId);
    first.catch(() => undefined); // handled in turn below
    this.#tail = this.#tail.then(async () => {
      if (this.#closed) return;
      try {
        let rows = await first;
        for (;;) {
          this.#take(rows);
          if (rows.length < PAGE || this.#closed) break;
          rows = await read(this.#lastId!);
        }
      } catch (error) {
        this.#fail(error);
      }
    });
  }

  #take(rows: readonly JobEventRow[]): void {
    for (const row of rows) {
      if (this.#lastId !== undefined && row.id <= this.#lastId) continue;
      this.#lastId = row.id;
      this.#push(decodeEvent(row));
    }
  }
}
