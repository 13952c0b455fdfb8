/**
 * A SQLite store whose connection meets real lock contention: a second connection takes SQLite's lock just
 * before a statement the test picks, so the store's connection gets a real `SQLITE_BUSY` (its busy timeout
 * is 0), and lets go as soon as it has. In WAL mode (`wal`) a writer's lock blocks other writers; in
 * rollback-journal mode (`rollback`, as on file systems without WAL) an exclusive lock blocks readers too —
 * there the store is told its file is not shared (`:memory:`) so that it keeps the journal mode.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SqliteDatabase } from "../../src/store/sqlite/sqlite-config.ts";
import { createSqliteStore, type SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";

/** How often the picked statements meet the lock. */
export interface ContentionOptions {
  mode: "wal" | "rollback";
  /** Picks the statements that meet the lock (their SQL text). */
  when(sql: string): boolean;
  /**
   * `times: n`: the first n picked attempts are busy, then the lock is gone. `alternate`: every picked statement
   * is busy once and goes through when repeated (each operation meets one busy).
   */
  busy: { times: number } | "alternate";
}

/** A store under contention, with the count of busy failures it met. */
export interface ContendedStore {
  store: SqliteStore;
  /** Starts the contention (the store is set up by then). */
  arm(): void;
  /** How many times the store met the lock. */
  busy(): number;
  /** Stops the contention and lets go of any lock. */
  release(): void;
  /** Closes the rival connection and removes the file (after the store is closed). */
  close(): void;
}

/** Creates a store in a new file under contention (see the module comment). */
export function contendedSqliteStore(options: ContentionOptions): ContendedStore {
  const directory = mkdtempSync(join(tmpdir(), "statek-contended-"));
  const path = join(directory, "statek.db");
  const raw = new DatabaseSync(path);
  if (options.mode === "rollback") raw.exec("PRAGMA journal_mode = DELETE");
  const rival = new DatabaseSync(path);
  rival.exec("PRAGMA busy_timeout = 5000");
  let armed = false;
  let locked = false;
  let busy = 0;
  // For `alternate`: the picked statement after a busy one goes through.
  let letThrough = false;
  const unlock = () => {
    if (locked) rival.exec("ROLLBACK");
    locked = false;
  };
  const mayLock = () => (options.busy === "alternate" ? !letThrough : busy < options.busy.times);
  const guard = <T>(sql: string, run: () => T): T => {
    const picked = armed && options.when(sql);
    if (picked && !locked && mayLock()) {
      rival.exec(options.mode === "wal" ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE");
      locked = true;
    } else if (picked) {
      letThrough = false;
    }
    try {
      return run();
    } catch (error) {
      if (locked && (error as { errcode?: number }).errcode === 5) {
        busy++;
        if (options.busy === "alternate") letThrough = true;
        if (options.busy === "alternate" || busy >= options.busy.times) unlock();
      }
      throw error;
    }
  };
  const database: SqliteDatabase = {
    exec: (sql) => guard(sql, () => raw.exec(sql)),
    prepare: (sql) => {
      const statement = raw.prepare(sql);
      return {
        run: (...parameters) => guard(sql, () => statement.run(...parameters)),
        get: (...parameters) => guard(sql, () => statement.get(...parameters)),
        all: (...parameters) => guard(sql, () => statement.all(...parameters)),
      };
    },
    close: () => raw.close(),
  };
  return {
    store: createSqliteStore({ path: options.mode === "wal" ? path : ":memory:", database, busyTimeoutMs: 0 }),
    arm: () => (armed = true),
    busy: () => busy,
    release: () => {
      armed = false;
      unlock();
    },
    close: () => {
      rival.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
