/**
 * What a worker watches to learn of other processes' commits without scanning (issue 10): `dataVersion` changes
 * when another connection committed and only then; `lastEventId` is where the outbox ends.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sampleJob } from "../store.suite.ts";
import { createSqliteStore } from "./sqlite-store.ts";

const root = mkdtempSync(join(tmpdir(), "statek-sqlite-markers-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("SqliteStore change markers", () => {
  it("dataVersion changes when another connection commits, not for the connection's own commits or reads", async () => {
    const path = join(root, "markers.db");
    const [watcher, writer] = [createSqliteStore({ path }), createSqliteStore({ path })];
    try {
      await watcher.migrate();
      await writer.migrate();
      const start = await watcher.dataVersion();
      assert.equal(typeof start, "number");
      const job = sampleJob();
      await watcher.insertJob(job, [], []);
      await watcher.getJob(job.id);
      assert.equal(await watcher.dataVersion(), start, "its own commit and reads leave it");
      await writer.appendEvents([{ jobId: job.id, kind: "job-submitted", data: null }]);
      const changed = await watcher.dataVersion();
      assert.notEqual(changed, start, "another connection's commit changes it");
      assert.equal(await watcher.dataVersion(), changed, "and it stays until the next one");
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
