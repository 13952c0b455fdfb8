/**
 * @module
 * Durable commits without blocking the event loop. With `synchronous = FULL`, SQLite fsyncs the WAL inside
 * `COMMIT`, on the thread that runs the statement — here the event loop, which then does nothing else for the
 * length of the fsync (measured: 3.4 of 10 s of a worker's restart on a loaded machine, ~5 ms a commit). So
 * the store runs the connection with `synchronous = NORMAL` (SQLite writes the WAL at `COMMIT` but does not
 * fsync it) and fsyncs the WAL itself, on libuv's thread pool, before the commit's promise resolves: a caller
 * is told a write committed only once it is on disk, as with `FULL`, while the event loop goes on with other
 * jobs' work. Commits that arrive while an fsync runs share the next one.
 *
 * The WAL is written in order and recovered up to its last complete commit, so an fsync covers every commit
 * made before it started. What differs from `FULL`: for the length of the fsync, a committed write is visible
 * to readers (this connection's, other processes') before it is durable — a power loss in that window loses
 * it, though one of them may have acted on it. A process crash loses nothing either way.
 */
import { close, fdatasync, openSync } from "node:fs";
import { errorMessage } from "../../errors/error-text.ts";

/** Flushes a file's data to disk (`fdatasync`), on the thread pool. */
export type FileSync = (fd: number, done: (error: Error | null) => void) => void;

/** The fsyncs of one connection's WAL. */
export class WalSync {
  readonly #walPath: string;
  readonly #sync: FileSync;
  #fd: number | undefined;
  /** Commits made so far, and how many of them are known durable. */
  #committed = 0;
  #durable = 0;
  #syncing: Promise<void> | undefined;

  /** `walPath` is the database's `-wal` file; `sync` is `fs.fdatasync` unless a test observes it. */
  constructor(walPath: string, sync: FileSync = fdatasync) {
    this.#walPath = walPath;
    this.#sync = sync;
  }

  /** Records a `COMMIT` that just returned; the ticket is what {@link durable} waits for. */
  committed(): number {
    return ++this.#committed;
  }

  /** Resolves once an fsync that started after commit `ticket` has completed. */
  async durable(ticket: number): Promise<void> {
    while (this.#durable < ticket) {
      this.#syncing ??= this.#syncNow();
      await this.#syncing;
    }
  }

  /** Waits for the fsync in progress and closes the WAL's descriptor. */
  async close(): Promise<void> {
    await this.#syncing?.catch(() => undefined);
    if (this.#fd !== undefined) await new Promise<void>((resolve) => close(this.#fd!, () => resolve()));
    this.#fd = undefined;
  }

  async #syncNow(): Promise<void> {
    const upTo = this.#committed;
    try {
      // Opened at the first sync: the WAL exists once a transaction has committed. An fsync of any descriptor
      // of a file flushes all of its written data.
      this.#fd ??= openSync(this.#walPath, "r+");
      const fd = this.#fd;
      await new Promise<void>((resolve, reject) => this.#sync(fd, (error) => (error ? reject(error) : resolve())));
      this.#durable = Math.max(this.#durable, upTo);
    } catch (error) {
      throw new Error(`SQLite: a commit could not be made durable (fsync of ${this.#walPath} failed: ${errorMessage(error)})`, { cause: error });
    } finally {
      this.#syncing = undefined;
    }
  }
}
