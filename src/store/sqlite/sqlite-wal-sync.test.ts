import assert from "node:assert/strict";
import { fdatasync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DatabaseSync } from "node:sqlite";
import { insertSample } from "../suite/suite-context.ts";
import { createSqliteStore } from "./sqlite-store.ts";
import { WalSync, type FileSync } from "./sqlite-wal-sync.ts";

/** A real fdatasync whose completion the test releases, so it can see what waits for which. */
function heldSync(): { sync: FileSync; started: number; release: () => Promise<void> } {
  const pending: Array<Promise<() => void>> = [];
  const state = {
    started: 0,
    sync: ((fd, done) => {
      state.started++;
      pending.push(new Promise((resolve) => fdatasync(fd, (error) => resolve(() => done(error)))));
    }) as FileSync,
    /** Completes every fsync started so far, once the disk has really finished it. */
    release: async () => {
      for (const finish of await Promise.all(pending.splice(0))) finish();
    },
  };
  return state;
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
};

describe("the WAL's fsyncs off the event loop", () => {
  it("tells a commit durable only after an fsync that started after it, sharing fsyncs between commits", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-wal-"));
    try {
      writeFileSync(join(dir, "x.db-wal"), "frames");
      const held = heldSync();
      const wal = new WalSync(join(dir, "x.db-wal"), held.sync);
      const first = wal.durable(wal.committed());
      assert.equal(held.started, 1);
      // Committed while the first fsync runs: that fsync may have missed it, so it waits for the next.
      const second = wal.durable(wal.committed());
      const third = wal.durable(wal.committed());
      assert.equal(await settled(first), false, "not before its fsync completes");
      await held.release();
      await first;
      assert.equal(await settled(second), false, "a commit made during an fsync waits for the next one");
      assert.equal(held.started, 2, "the two later commits share one fsync");
      await held.release();
      await Promise.all([second, third]);
      await wal.durable(1);
      assert.equal(held.started, 2, "a commit known durable waits for nothing");
      await wal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails the commits of an fsync that failed, naming the file, and tries again for the next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-wal-"));
    try {
      writeFileSync(join(dir, "x.db-wal"), "frames");
      let fail = true;
      const wal = new WalSync(join(dir, "x.db-wal"), (fd, done) => (fail ? done(Object.assign(new Error("EIO: i/o error"), { code: "EIO" })) : fdatasync(fd, done)));
      await assert.rejects(wal.durable(wal.committed()), /a commit could not be made durable \(fsync of .*x\.db-wal failed: EIO: i\/o error\)/);
      fail = false;
      await wal.durable(wal.committed());
      await wal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carries a FULL store's commits on a file: concurrent writes resolve once durable and are all there after reopening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-wal-"));
    try {
      const path = join(dir, "store.db");
      const store = createSqliteStore({ path });
      const jobs = await Promise.all(Array.from({ length: 40 }, (_, index) => insertSample(store, { createdAt: index })));
      // The connection runs NORMAL (SQLite does not fsync at COMMIT); the adapter fsyncs the WAL itself.
      const probe = new DatabaseSync(path);
      assert.equal(probe.prepare("PRAGMA journal_mode").get()?.["journal_mode"], "wal");
      probe.close();
      await store.close();
      const again = createSqliteStore({ path });
      assert.deepEqual((await Promise.all(jobs.map((job) => again.getJob(job.id)))).map((job) => job?.id), jobs.map((job) => job.id));
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
