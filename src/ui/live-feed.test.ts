import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openStore } from "../store/open-store.ts";
import { sampleJob } from "../store/suite/suite-context.ts";
import type { JobEventRow } from "../store/store.ts";
import { LiveFeed } from "./live-feed.ts";

/** The next event a feed hands its listener, or a failure after `ms`. */
function nextEvent(feed: LiveFeed, ms: number): Promise<JobEventRow> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
    const stop = feed.subscribe((event) => {
      clearTimeout(timer);
      stop();
      resolve(event);
    });
  });
}

describe("the UI's live feed", () => {
  it("hears events another connection (another process) appends without waiting for its safety poll", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-live-feed-"));
    const [ui, other] = [await openStore(join(dir, "statek.db")), await openStore(join(dir, "statek.db"))];
    // A safety poll of a minute: only the store's wake-up hint can deliver within the test's limit.
    const feed = new LiveFeed(ui, { pollMs: 60_000 });
    try {
      const job = sampleJob();
      await other.insertJob(job, [], []);
      await feed.cursor();
      const heard = nextEvent(feed, 5_000);
      await other.appendEvents([{ jobId: job.id, kind: "from-elsewhere", data: 1 }]);
      assert.equal((await heard).kind, "from-elsewhere");
      const own = nextEvent(feed, 5_000);
      await ui.appendEvents([{ jobId: job.id, kind: "from-here", data: 2 }]);
      assert.equal((await own).kind, "from-here");
    } finally {
      feed.close();
      await Promise.all([ui.close(), other.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
