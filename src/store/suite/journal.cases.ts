/**
 * @module
 * Conformance cases: the journal of a job's current cell — appended densely under the lease, outside the step's
 * commit; a later cell replaces it; a commit clears it; appends and commits of one tick keep their call order.
 */
import assert from "node:assert/strict";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { Fence } from "../durable-rows.ts";
import type { JsonValue, Store } from "../store.ts";
import { rejectsLeaseLost } from "./leases.cases.ts";
import { insertSample, type SuiteContext } from "./suite-context.ts";

const HOUR = 3_600_000;

/** A job claimed by `worker`, with its fence. */
async function claimedJob(store: Store): Promise<{ id: string; fence: Fence }> {
  const job = await insertSample(store, { status: "STARTED" });
  const lease = await store.claimJob(job.id, "worker", HOUR);
  assert.ok(lease);
  return { id: job.id, fence: { owner: lease.owner, epoch: lease.epoch } };
}

const entry = (index: number, data: JsonValue = { seq: index, kind: "tool", state: "intent" }) => ({ index, data });

/** Defines the journal cases. */
export function journalCases({ test }: SuiteContext): void {
  test("appendJournal appends densely and getJournal reads the cell back", async (store) => {
    const { id, fence } = await claimedJob(store);
    assert.equal(await store.getJournal(id), null);
    await store.appendJournal(id, fence, 3, [entry(0), entry(1, { result: [1, "two", { three: null }] })]);
    await store.appendJournal(id, fence, 3, [entry(2, "done")]);
    await store.appendJournal(id, fence, 3, []);
    assert.deepEqual(await store.getJournal(id), {
      cell: 3,
      entries: [entry(0), entry(1, { result: [1, "two", { three: null }] }), entry(2, "done")],
    });
  });

  test("appendJournal refuses gaps and overlaps and writes nothing of them", async (store) => {
    const { id, fence } = await claimedJob(store);
    await store.appendJournal(id, fence, 0, [entry(0)]);
    for (const entries of [[entry(2)], [entry(0)], [entry(1), entry(3)]]) {
      await assert.rejects(store.appendJournal(id, fence, 0, entries), /journal index \d+ does not continue the job's journal \(the next one is \d+\)/);
    }
    await assert.rejects(store.appendJournal(id, fence, 1, [entry(1)]), /journal index 1 does not continue/, "a new cell starts at 0");
    assert.deepEqual(await store.getJournal(id), { cell: 0, entries: [entry(0)] });
  });

  test("a later cell replaces the journal and an earlier one is refused", async (store) => {
    const { id, fence } = await claimedJob(store);
    await store.appendJournal(id, fence, 4, [entry(0), entry(1)]);
    await store.appendJournal(id, fence, 5, [entry(0, "new cell")]);
    assert.deepEqual(await store.getJournal(id), { cell: 5, entries: [entry(0, "new cell")] });
    await assert.rejects(store.appendJournal(id, fence, 4, [entry(0)]), /cell 4 is older than the journal's cell 5/);
    assert.deepEqual(await store.getJournal(id), { cell: 5, entries: [entry(0, "new cell")] });
  });

  test("a commit with clearJournal deletes the journal", async (store) => {
    const { id, fence } = await claimedJob(store);
    await store.appendJournal(id, fence, 0, [entry(0), entry(1)]);
    await store.commit({ id, expectedVersion: 0, job: { cell: 1 }, clearJournal: true, fence });
    assert.equal(await store.getJournal(id), null);
    assert.equal((await store.getJob(id))?.cell, 1);
    await store.appendJournal(id, fence, 1, [entry(0)]);
    assert.deepEqual(await store.getJournal(id), { cell: 1, entries: [entry(0)] });
  });

  test("a commit that fails keeps the journal", async (store) => {
    const { id, fence } = await claimedJob(store);
    await store.appendJournal(id, fence, 0, [entry(0)]);
    await assert.rejects(store.commit({ id, expectedVersion: 7, clearJournal: true, fence }), /expected version 7/);
    assert.deepEqual(await store.getJournal(id), { cell: 0, entries: [entry(0)] });
  });

  test("appends and commits of one tick share a transaction in call order", async (store) => {
    const { id, fence } = await claimedJob(store);
    await Promise.all([
      store.appendJournal(id, fence, 0, [entry(0)]),
      store.appendJournal(id, fence, 0, [entry(1)]),
      store.commit({ id, expectedVersion: 0, clearJournal: true, job: { cell: 1 }, fence }),
      store.appendJournal(id, fence, 1, [entry(0, "after the commit")]),
    ]);
    assert.deepEqual(await store.getJournal(id), { cell: 1, entries: [entry(0, "after the commit")] });
  });

  test("appendJournal is fenced and needs an existing job", async (store) => {
    const { id, fence } = await claimedJob(store);
    await store.appendJournal(id, fence, 0, [entry(0)]);
    await store.renewLease(id, fence, 0);
    const taken = await store.claimJob(id, "worker-b", HOUR);
    assert.ok(taken);
    await rejectsLeaseLost(store.appendJournal(id, fence, 0, [entry(1)]), id, fence);
    await store.appendJournal(id, { owner: taken.owner, epoch: taken.epoch }, 0, [entry(1, "replayed")]);
    assert.deepEqual(await store.getJournal(id), { cell: 0, entries: [entry(0), entry(1, "replayed")] });
    await assert.rejects(store.appendJournal("no-such-job", fence, 0, [entry(0)]), (error) => error instanceof NoSuchJobError);
    await assert.rejects(store.appendJournal(id, fence, -1, []), /cell must be a non-negative integer/);
  });
}
