/**
 * @module
 * The one reader of a store's outbox, behind `Store.followEvents`: every follower of one store object — the
 * streams of `statek.events()`, the UI's live pages — shares it. It holds one cursor (the newest event it has
 * read) and reads forward from it by pages, retrying transient failures, each time the store's one wake-up
 * subscription says a write may have appended events: at once for this store object's own commits (the hint
 * comes before the committing caller goes on), and through the engine's hint for other processes' (SQLite's
 * `data_version`, PostgreSQL's `LISTEN/NOTIFY` and its safety poll). It reads nothing, and does not subscribe,
 * while nobody follows.
 *
 * A follower that starts before the cursor (a job's events from the start, a reader resuming after an id) reads
 * what it missed by pages of its own first; events the shared reads bring meanwhile wait, and ids it has
 * delivered are never delivered again.
 */
import type { JobEventRow } from "./durable-rows.ts";
import { withStoreRetries } from "./store-retries.ts";
import type { EventFollow, EventFollower, EventQuery, FollowOptions, WakeupOrigin } from "./store.ts";

/** What the reader needs from its store. */
export interface OutboxSource {
  readEvents(query: EventQuery): Promise<JobEventRow[]>;
  lastEventId(): Promise<number>;
  subscribeWakeups(listener: (origin: WakeupOrigin) => void): () => void;
}

/** Events read at once; a full page is followed by the next at once. */
const PAGE = 500;

/** One follower's state. */
interface Follower {
  readonly follower: EventFollower;
  readonly jobId: string | undefined;
  /** The id up to which events were delivered; `undefined` until the starting point is known. */
  lastId: number | undefined;
  /** Events the shared reads brought while the follower read what it missed. */
  held: JobEventRow[] | undefined;
  /** Its own reads (the starting point, what it missed), in order. */
  catchingUp: Promise<void>;
  stopped: boolean;
}

/** The shared reader of one store's outbox. */
export class OutboxReader {
  readonly #source: OutboxSource;
  readonly #followers = new Set<Follower>();
  /** The newest event read by the shared reads; `undefined` until they start. */
  #cursor: number | undefined;
  /** Where the shared reads start: the newest event when the first follower came. */
  #cursorKnown: Promise<void> | undefined;
  /** Bumped when the last follower leaves: reads of an earlier round move no cursor. */
  #round = 0;
  #stopWakeups: (() => void) | undefined;
  #reading: Promise<void> | undefined;
  #again = false;

  constructor(source: OutboxSource) {
    this.#source = source;
  }

  /** See `Store.followEvents`. */
  follow(follower: EventFollower, options: FollowOptions = {}): EventFollow {
    const state: Follower = { follower, jobId: options.jobId, lastId: undefined, held: [], catchingUp: Promise.resolve(), stopped: false };
    this.#followers.add(state);
    this.#stopWakeups ??= this.#source.subscribeWakeups(() => this.#wake());
    let started!: (id: number) => void;
    let failed!: (error: unknown) => void;
    const startedPromise = new Promise<number>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    startedPromise.catch(() => undefined); // a follower that never asks is told through onError
    state.catchingUp = (async () => {
      try {
        // Once the shared reads know where they start, what this follower reads by itself reaches up to there.
        await this.#startShared();
        const start = options.afterId ?? (await withStoreRetries(() => this.#source.lastEventId()));
        state.lastId = start;
        started(start);
        for (let after = start; !state.stopped;) {
          const rows = await withStoreRetries(() => this.#source.readEvents({ afterId: after, limit: PAGE, ...(state.jobId === undefined ? {} : { jobId: state.jobId }) }));
          this.#deliver(state, rows);
          if (rows.length < PAGE) break;
          after = rows[rows.length - 1]!.id;
        }
      } catch (error) {
        failed(error);
        this.#report(state, error);
      } finally {
        const held = state.held ?? [];
        state.held = undefined;
        if (state.lastId !== undefined) this.#deliver(state, held);
      }
    })();
    return {
      started: startedPromise,
      caughtUp: () => this.#caughtUp(state),
      stop: () => {
        state.stopped = true;
        this.#followers.delete(state);
        if (this.#followers.size === 0) this.#unsubscribe();
      },
    };
  }

  /** Stops every follower (the store is closing). */
  close(): void {
    for (const state of this.#followers) state.stopped = true;
    this.#followers.clear();
    this.#unsubscribe();
  }

  #unsubscribe(): void {
    const stop = this.#stopWakeups;
    this.#stopWakeups = undefined;
    // A later follower starts the shared reads from the outbox's newest event again.
    this.#round++;
    this.#cursor = undefined;
    this.#cursorKnown = undefined;
    stop?.();
  }

  /** Sets the shared cursor to the outbox's newest event, once per round of followers. */
  #startShared(): Promise<void> {
    if (this.#cursorKnown === undefined) {
      const round = this.#round;
      const known = withStoreRetries(() => this.#source.lastEventId()).then((id) => {
        if (round === this.#round) this.#cursor ??= id;
      });
      this.#cursorKnown = known;
      known.catch(() => {
        if (this.#cursorKnown === known) this.#cursorKnown = undefined; // the next follower or read tries again
      });
    }
    return this.#cursorKnown;
  }

  async #caughtUp(state: Follower): Promise<void> {
    await state.catchingUp;
    // The read in progress, and the one a hint asked for while it ran: later ones are for later commits.
    for (let round = 0; round < 2 && this.#reading !== undefined; round++) await this.#reading;
  }

  /** Reads now, or once the read in progress has ended (the hint may be about a commit it missed). */
  #wake(): void {
    if (this.#followers.size === 0) return;
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.#wake();
      }
    });
  }

  async #read(): Promise<void> {
    const round = this.#round;
    try {
      await this.#startShared();
      for (;;) {
        if (round !== this.#round || this.#cursor === undefined) break;
        const after: number = this.#cursor;
        const rows = await withStoreRetries(() => this.#source.readEvents({ afterId: after, limit: PAGE }));
        if (rows.length === 0 || round !== this.#round) break;
        this.#cursor = rows[rows.length - 1]!.id;
        for (const state of [...this.#followers]) {
          if (state.held !== undefined) state.held.push(...rows);
          else this.#deliver(state, rows);
        }
        if (rows.length < PAGE) break;
      }
    } catch (error) {
      // The cursor stays where it was: the next wake-up reads the same events again.
      for (const state of [...this.#followers]) this.#report(state, error);
    }
  }

  /** Hands `state` the rows it has not had yet (its job's only). */
  #deliver(state: Follower, rows: readonly JobEventRow[]): void {
    if (state.stopped || state.lastId === undefined) return;
    const fresh = rows.filter((row) => row.id > state.lastId! && (state.jobId === undefined || row.jobId === state.jobId));
    if (rows.length) state.lastId = Math.max(state.lastId, rows[rows.length - 1]!.id);
    if (fresh.length === 0) return;
    try {
      state.follower.onEvents(fresh);
    } catch {
      // A follower's failure is its own; the others still get the events.
    }
  }

  #report(state: Follower, error: unknown): void {
    if (state.stopped) return;
    try {
      state.follower.onError?.(error);
    } catch {
      // As above.
    }
  }
}
