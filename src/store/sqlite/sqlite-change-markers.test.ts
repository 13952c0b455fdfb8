/**
 * What a worker and the outbox reader watch to learn of other processes' commits without scanning: the store's
 * wake-up subscription, which polls `PRAGMA data_version` (it changes when another connection committed, and
 * only then), and `lastEventId`, where the outbox ends.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sampleJob } from "../store.suite.ts";
import type { WakeupOrigin } from "../store.ts";
import { createSqliteStore } from "./sqlite-store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-sqlite-markers-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("SqliteStore change markers", () => {
  it("wake-up hints: another connection's commits are remote; the connection's own are local only, reads none", async () => {
    const path = join(root, "markers.db");
    const [watcher, writer] = [createSqliteStore({ path, pollIntervalMs: 5 }), createSqliteStore({ path })];
    const heard: WakeupOrigin[] = [];
    let next: (origin: WakeupOrigin) => void = () => undefined;
    const hint = () => new Promise<WakeupOrigin>((resolve) => (next = resolve));
    try {
      await Promise.all([watcher.migrate(), writer.migrate()]);
      const stop = watcher.subscribeWakeups((origin) => {
        heard.push(origin);
        next(origin);
      });
      const job = sampleJob();
      let coming = hint();
      await watcher.insertJob(job, [], []);
      assert.equal(await coming, "local", "its own commit is heard as it commits");
      await watcher.getJob(job.id);
      // Two polls of data_version at least, after its own commit and read: a change would be heard by now.
      coming = hint();
      await writer.appendEvents([{ jobId: job.id, kind: "elsewhere", data: null }]);
      assert.equal(await coming, "remote", "another connection's commit changes data_version");
      assert.deepEqual(heard, ["local", "remote"], "its own commit and read left data_version as it was");
      stop();
    } finally {
      await watcher.close();
      await writer.close();
    }
  });

  it("lastEventId is 0 for an empty outbox, then the newest event's id", async () => {
    const store = createSqliteStore({ path: ":memory:" });
    try {
      assert.equal(await store.lastEventId(), 0);
      const job = sampleJob();
      await store.insertJob(job, [], []);
      await store.appendEvents([{ jobId: job.id, kind: "a", data: 1 }, { jobId: job.id, kind: "b", data: 2 }]);
      const events = await store.readEvents();
      assert.equal(await store.lastEventId(), events.at(-1)!.id);
      assert.deepEqual(await store.readEvents({ afterId: await store.lastEventId() }), []);
    } finally {
      await store.close();
    }
  });
});
