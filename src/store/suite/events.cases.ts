/**
 * @module
 * Conformance cases: the outbox of job events — appended with commits (atomically, in commit order), with every
 * inserted job or on their own, read after an id, by job, with a limit, and followed through the store's one
 * reader (`followEvents`), in this process and from another connection.
 */
import assert from "node:assert/strict";
import type { Store } from "../store.ts";
import { insertSample, sampleRecord, type SuiteContext } from "./suite-context.ts";

/** The events after the outbox's newest now, once `write` has run (what a test's own writes appended). */
async function appendedBy(store: Store, write: () => Promise<unknown>) {
  const from = await store.lastEventId();
  await write();
  return store.readEvents({ afterId: from });
}

/** Defines the event cases. */
export function eventCases({ test, testShared }: SuiteContext): void {
  test("events appended with commits are read back in commit order", async (store) => {
    const [a, b] = [await insertSample(store), await insertSample(store)];
    const before = Date.now();
    const events = await appendedBy(store, async () => {
      await Promise.all([
        store.commit({ id: a.id, expectedVersion: 0, job: { status: "STARTED" }, events: [{ kind: "status-change", data: { status: "STARTED" } }] }),
        store.commit({ id: b.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], events: [{ kind: "step-end", data: null }, { jobId: a.id, kind: "child-end", data: { child: b.id } }] }),
      ]);
      await store.commit({ id: a.id, expectedVersion: 1, events: [{ kind: "step-end", data: [1, 2] }] });
    });
    assert.deepEqual(events.map((event) => [event.jobId, event.kind, event.data]), [
      [a.id, "status-change", { status: "STARTED" }],
      [b.id, "step-end", null],
      [a.id, "child-end", { child: b.id }],
      [a.id, "step-end", [1, 2]],
    ]);
    for (let index = 1; index < events.length; index++) assert.ok(events[index]!.id > events[index - 1]!.id, "ids increase");
    for (const event of events) assert.ok(event.at >= before && event.at <= Date.now(), "stamped with the store's clock");
  });

  test("readEvents reads after an id, by job and up to a limit", async (store) => {
    const job = await insertSample(store);
    const other = await insertSample(store);
    await store.appendEvents([
      { jobId: job.id, kind: "one", data: 1 },
      { jobId: other.id, kind: "two", data: 2 },
      { jobId: job.id, kind: "three", data: 3 },
      { jobId: job.id, kind: "four", data: 4 },
    ]);
    const all = (await store.readEvents()).slice(2);
    assert.deepEqual((await store.readEvents()).slice(0, 2).map((event) => [event.jobId, event.kind]), [[job.id, "job-submitted"], [other.id, "job-submitted"]]);
    assert.deepEqual(all.map((event) => event.kind), ["one", "two", "three", "four"]);
    assert.deepEqual((await store.readEvents({ afterId: all[1]!.id })).map((event) => event.kind), ["three", "four"]);
    assert.deepEqual((await store.readEvents({ jobId: job.id })).map((event) => event.kind), ["job-submitted", "one", "three", "four"]);
    assert.deepEqual((await store.readEvents({ jobId: job.id, afterId: all[0]!.id, limit: 1 })).map((event) => event.kind), ["three"]);
    assert.deepEqual(await store.readEvents({ limit: 0 }), []);
    assert.deepEqual(await store.readEvents({ afterId: all[3]!.id }), []);
    assert.deepEqual(await store.readEvents({ jobId: "nobody" }), []);
  });

  test("a commit that fails appends none of its events", async (store) => {
    const job = await insertSample(store);
    const events = await appendedBy(store, async () => {
      await assert.rejects(store.commit({ id: job.id, expectedVersion: 3, events: [{ kind: "never", data: null }] }), /expected version 3/);
    });
    assert.deepEqual(events, []);
  });

  test("lastEventId is the newest event's id, 0 before any", async (store) => {
    assert.equal(await store.lastEventId(), 0);
    const job = await insertSample(store);
    await store.appendEvents([{ jobId: job.id, kind: "one", data: 1 }, { jobId: job.id, kind: "two", data: 2 }]);
    const events = await store.readEvents();
    assert.equal(await store.lastEventId(), events.at(-1)!.id);
    assert.deepEqual(await store.readEvents({ afterId: await store.lastEventId() }), []);
  });

  test("followEvents hands a follower the events committed after it started, in order, each once, until stopped", async (store) => {
    const job = await insertSample(store);
    const seen: string[] = [];
    const batches: number[] = [];
    const follow = store.followEvents({
      onEvents: (events) => {
        batches.push(events.length);
        seen.push(...events.map((event) => event.kind));
      },
    });
    store.followEvents({
      onEvents: () => {
        throw new Error("a failing follower changes nothing for the others");
      },
    });
    assert.equal(await follow.started, await store.lastEventId(), "without afterId it starts after the newest event");
    await store.commit({ id: job.id, expectedVersion: 0, events: [{ kind: "step-end", data: null }] });
    await follow.caughtUp();
    assert.deepEqual(seen, ["step-end"], "heard once committed: caughtUp waits for what this store object committed");
    await Promise.all([
      store.appendEvents([{ jobId: job.id, kind: "a", data: null }]),
      store.appendEvents([{ jobId: job.id, kind: "b", data: null }]),
      store.commit({ id: job.id, expectedVersion: 1, job: { turns: 1 } }),
    ]);
    await store.commit({ id: job.id, expectedVersion: 2, createFutures: [{ key: "k1", jobId: job.id, kind: "external", wakeAt: null, data: null }] });
    await store.settleFuture("k1", { state: "resolved", value: 1, door: "application" });
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, events: [{ kind: "never", data: null }] }));
    const other = await insertSample(store);
    await follow.caughtUp();
    assert.deepEqual(seen, ["step-end", "a", "b", "future-settled", "job-submitted"]);
    assert.deepEqual(batches.slice(0, 2), [1, 2], "the writes of one group commit come in one delivery");
    follow.stop();
    await store.appendEvents([{ jobId: other.id, kind: "unheard", data: null }]);
    await follow.caughtUp();
    assert.equal(seen.includes("unheard"), false, "a stopped follower hears nothing");
  });

  test("followEvents from afterId delivers what the outbox holds first, then new events; jobId keeps one job's", async (store) => {
    const [job, other] = [await insertSample(store), await insertSample(store)];
    await store.appendEvents([{ jobId: job.id, kind: "one", data: 1 }, { jobId: other.id, kind: "two", data: 2 }, { jobId: job.id, kind: "three", data: 3 }]);
    const [submitted] = await store.readEvents({ jobId: job.id });
    const all: string[] = [];
    const mine: string[] = [];
    const everything = store.followEvents({ onEvents: (events) => all.push(...events.map((event) => event.kind)) }, { afterId: submitted!.id });
    const one = store.followEvents({ onEvents: (events) => mine.push(...events.map((event) => event.kind)) }, { afterId: 0, jobId: job.id });
    assert.equal(await one.started, 0);
    await store.appendEvents([{ jobId: job.id, kind: "four", data: 4 }, { jobId: other.id, kind: "five", data: 5 }]);
    await Promise.all([everything.caughtUp(), one.caughtUp()]);
    assert.deepEqual(all, ["job-submitted", "one", "two", "three", "four", "five"]);
    assert.deepEqual(mine, ["job-submitted", "one", "three", "four"]);
    everything.stop();
    one.stop();
    assert.throws(() => store.followEvents({} as never), /expected a follower/);
    assert.throws(() => store.followEvents({ onEvents: () => undefined }, { afterId: -1 }), /afterId must be a non-negative integer/);
  });

  test("insertJob appends the job's job-submitted event in its transaction", async (store) => {
    const job = await insertSample(store, { role: "planner" });
    assert.deepEqual((await store.readEvents()).map((event) => [event.jobId, event.kind, event.data]), [[job.id, "job-submitted", { role: "planner" }]]);
    await assert.rejects(store.insertJob(job, [], []), /already exists/);
    assert.equal((await store.readEvents()).length, 1, "an insert that fails appends nothing");
  });

  test("event calls check their arguments", async (store) => {
    await assert.rejects(store.appendEvents([{ kind: "x", data: null } as never]), /events\[0\]\.jobId must be a non-empty string/);
    await assert.rejects(store.appendEvents([{ jobId: "j", kind: "", data: null }]), /events\[0\]\.kind must be a non-empty string/);
    await assert.rejects(store.readEvents({ afterId: -1 }), /afterId must be a non-negative integer/);
    assert.deepEqual(await appendedBy(store, () => store.appendEvents([])), []);
  });

  test("pruneEvents deletes the events stamped before a time, oldest first, up to a limit", async (store) => {
    const job = await insertSample(store);
    await store.appendEvents([{ jobId: job.id, kind: "old-1", data: 1 }, { jobId: job.id, kind: "old-2", data: 2 }]);
    const old = await store.readEvents();
    assert.equal(old[0]!.kind, "job-submitted");
    // The store's clock must move past the old events' stamp before the new one is written.
    while (Date.now() <= old[2]!.at + 1) await new Promise((resolve) => setImmediate(resolve));
    await store.appendEvents([{ jobId: job.id, kind: "new", data: 4 }]);
    const cutoff = (await store.readEvents({ afterId: old[2]!.id }))[0]!.at;
    assert.ok(cutoff > old[2]!.at, "the new event is stamped later");
    assert.equal(await store.pruneEvents({ before: cutoff, limit: 2 }), 2, "at most the limit");
    assert.deepEqual((await store.readEvents()).map((event) => event.kind), ["old-2", "new"]);
    assert.equal(await store.pruneEvents({ before: cutoff }), 1);
    assert.equal(await store.pruneEvents({ before: cutoff }), 0, "nothing older is left");
    assert.deepEqual((await store.readEvents()).map((event) => event.kind), ["new"]);
    assert.equal(await store.lastEventId(), (await store.readEvents())[0]!.id, "ids are not reused");
    await assert.rejects(store.pruneEvents({ before: -1 }), /before must be a non-negative integer/);
    await assert.rejects(store.pruneEvents({ before: 1, limit: 1.5 }), /limit must be a non-negative integer/);
  });

  testShared("followEvents hears another connection's events through the store's wake-up hints", async (store, second) => {
    const job = await insertSample(store);
    let heard!: (kinds: string[]) => void;
    const arrived = new Promise<string[]>((resolve) => (heard = resolve));
    const follow = store.followEvents({ onEvents: (events) => heard(events.map((event) => event.kind)) });
    await follow.started;
    await second.appendEvents([{ jobId: job.id, kind: "from-elsewhere", data: 1 }]);
    assert.deepEqual(await arrived, ["from-elsewhere"]);
    follow.stop();
  });
}
