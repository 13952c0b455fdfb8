/**
 * @module
 * Conformance cases: the outbox of job events — appended with commits (atomically, in commit order) or on their
 * own, read after an id, by job, with a limit.
 */
import assert from "node:assert/strict";
import { insertSample, sampleRecord, type SuiteContext } from "./suite-context.ts";

/** Resolves once `condition` holds, checking after each turn of the event loop (a listener runs in a microtask). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn > 1_000) throw new Error("the condition never held");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Defines the event cases. */
export function eventCases({ test }: SuiteContext): void {
  test("events appended with commits are read back in commit order", async (store) => {
    const [a, b] = [await insertSample(store), await insertSample(store)];
    const before = Date.now();
    await Promise.all([
      store.commit({ id: a.id, expectedVersion: 0, job: { status: "STARTED" }, events: [{ kind: "status-change", data: { status: "STARTED" } }] }),
      store.commit({ id: b.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], events: [{ kind: "step-end", data: null }, { jobId: a.id, kind: "child-end", data: { child: b.id } }] }),
    ]);
    await store.commit({ id: a.id, expectedVersion: 1, events: [{ kind: "step-end", data: [1, 2] }] });
    const events = await store.readEvents();
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
    const all = await store.readEvents();
    assert.deepEqual(all.map((event) => event.kind), ["one", "two", "three", "four"]);
    assert.deepEqual((await store.readEvents({ afterId: all[1]!.id })).map((event) => event.kind), ["three", "four"]);
    assert.deepEqual((await store.readEvents({ jobId: job.id })).map((event) => event.kind), ["one", "three", "four"]);
    assert.deepEqual((await store.readEvents({ jobId: job.id, afterId: all[0]!.id, limit: 1 })).map((event) => event.kind), ["three"]);
    assert.deepEqual(await store.readEvents({ limit: 0 }), []);
    assert.deepEqual(await store.readEvents({ afterId: all[3]!.id }), []);
    assert.deepEqual(await store.readEvents({ jobId: "nobody" }), []);
  });

  test("a commit that fails appends none of its events", async (store) => {
    const job = await insertSample(store);
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 3, events: [{ kind: "never", data: null }] }), /expected version 3/);
    assert.deepEqual(await store.readEvents(), []);
  });

  test("lastEventId is the newest event's id, 0 before any", async (store) => {
    assert.equal(await store.lastEventId(), 0);
    const job = await insertSample(store);
    await store.appendEvents([{ jobId: job.id, kind: "one", data: 1 }, { jobId: job.id, kind: "two", data: 2 }]);
    const events = await store.readEvents();
    assert.equal(await store.lastEventId(), events[1]!.id);
    assert.deepEqual(await store.readEvents({ afterId: await store.lastEventId() }), []);
  });

  test("watchEvents hears every write that appended events, after it committed, until stopped", async (store) => {
    const job = await insertSample(store);
    const seen: number[] = [];
    let heard = 0;
    const stop = store.watchEvents(() => {
      heard++;
      // Heard after the commit: what was appended can be read already.
      void store.readEvents().then((events) => seen.push(events.length));
    });
    store.watchEvents(() => {
      throw new Error("a failing listener changes nothing");
    });
    await store.commit({ id: job.id, expectedVersion: 0, events: [{ kind: "step-end", data: null }] });
    await until(() => heard === 1);
    await store.appendEvents([{ jobId: job.id, kind: "note", data: null }]);
    await until(() => heard === 2);
    await store.commit({ id: job.id, expectedVersion: 1, createFutures: [{ key: "k1", jobId: job.id, kind: "external", wakeAt: null, data: null }] });
    await store.settleFuture("k1", { state: "resolved", value: 1, door: "application" });
    await until(() => heard === 3);
    await store.commit({ id: job.id, expectedVersion: 2, job: { turns: 1 } });
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, events: [{ kind: "never", data: null }] }));
    await store.settleFuture("k1", { state: "resolved", value: 2, door: "application" });
    await store.settleFuture("nobody-waits", { state: "resolved", value: 2, door: "application" });
    await Promise.all([
      store.appendEvents([{ jobId: job.id, kind: "a", data: null }]),
      store.appendEvents([{ jobId: job.id, kind: "b", data: null }]),
    ]);
    await until(() => heard === 4);
    await until(() => seen.length === 4);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(heard, 4, "writes without events are not heard; writes of one group commit are heard once");
    assert.deepEqual(seen, [1, 2, 3, 5]);
    stop();
    await store.appendEvents([{ jobId: job.id, kind: "unheard", data: null }]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(heard, 4, "a stopped listener hears nothing");
  });

  test("event calls check their arguments", async (store) => {
    await assert.rejects(store.appendEvents([{ kind: "x", data: null } as never]), /events\[0\]\.jobId must be a non-empty string/);
    await assert.rejects(store.appendEvents([{ jobId: "j", kind: "", data: null }]), /events\[0\]\.kind must be a non-empty string/);
    await assert.rejects(store.readEvents({ afterId: -1 }), /afterId must be a non-negative integer/);
    await store.appendEvents([]);
    assert.deepEqual(await store.readEvents(), []);
  });

  test("pruneEvents deletes the events stamped before a time, oldest first, up to a limit", async (store) => {
    // Optional for a store of your own (a worker then keeps every event); the built-in stores have it.
    if (!store.pruneEvents) return;
    const job = await insertSample(store);
    await store.appendEvents([{ jobId: job.id, kind: "old-1", data: 1 }, { jobId: job.id, kind: "old-2", data: 2 }, { jobId: job.id, kind: "old-3", data: 3 }]);
    const old = await store.readEvents();
    // The store's clock must move past the old events' stamp before the new one is written.
    while (Date.now() <= old[2]!.at + 1) await new Promise((resolve) => setImmediate(resolve));
    await store.appendEvents([{ jobId: job.id, kind: "new", data: 4 }]);
    const cutoff = (await store.readEvents({ afterId: old[2]!.id }))[0]!.at;
    assert.ok(cutoff > old[2]!.at, "the new event is stamped later");
    assert.equal(await store.pruneEvents({ before: cutoff, limit: 2 }), 2, "at most the limit");
    assert.deepEqual((await store.readEvents()).map((event) => event.kind), ["old-3", "new"]);
    assert.equal(await store.pruneEvents({ before: cutoff }), 1);
    assert.equal(await store.pruneEvents({ before: cutoff }), 0, "nothing older is left");
    assert.deepEqual((await store.readEvents()).map((event) => event.kind), ["new"]);
    assert.equal(await store.lastEventId(), (await store.readEvents())[0]!.id, "ids are not reused");
    await assert.rejects(store.pruneEvents({ before: -1 }), /before must be a non-negative integer/);
    await assert.rejects(store.pruneEvents({ before: 1, limit: 1.5 }), /limit must be a non-negative integer/);
  });
}
