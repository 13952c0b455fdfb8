/**
 * @module
 * Conformance cases with two connections to one database (as two processes have): commits racing on one job,
 * claims racing on the same runnable jobs, a write fenced by a lease the other connection took over, and
 * settlements seen across connections. Real processes are tested per engine (`test/store-processes.test.ts`).
 */
import assert from "node:assert/strict";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import type { Store } from "../store.ts";
import { rejectsLeaseLost } from "./leases.cases.ts";
import { insertSample, sampleRecord, type SuiteContext } from "./suite-context.ts";

const HOUR = 3_600_000;

/** Adds 1 to the job's `turns` with a version-checked commit, re-reading after each conflict. */
async function increment(store: Store, id: string): Promise<number> {
  for (let conflicts = 0; ; conflicts++) {
    const job = await store.getJob(id);
    assert.ok(job);
    try {
      await store.commit({ id, expectedVersion: job.version, job: { turns: job.turns + 1 } });
      return conflicts;
    } catch (error) {
      if (!(error instanceof JobConflictError)) throw error;
    }
  }
}

/** Defines the two-connection cases. */
export function sharedCases({ testShared }: SuiteContext): void {
  testShared("two connections committing to one job: every commit lands exactly once", async (store, second) => {
    const job = await insertSample(store);
    const run = async (connection: Store) => {
      for (let step = 0; step < 15; step++) await increment(connection, job.id);
    };
    await Promise.all([run(store), run(second), run(store), run(second)]);
    const after = await store.getJob(job.id);
    assert.deepEqual([after?.turns, after?.version], [60, 60]);
  });

  testShared("two connections claiming at once never claim the same job", async (store, second) => {
    const jobs = await Promise.all(Array.from({ length: 40 }, (_, index) => insertSample(store, { createdAt: index })));
    const claimed: string[] = [];
    const claimer = async (connection: Store, owner: string) => {
      for (;;) {
        const leases = await connection.claimRunnable(owner, HOUR, 3);
        if (leases.length === 0) return;
        claimed.push(...leases.map((lease) => lease.jobId));
      }
    };
    await Promise.all([claimer(store, "a"), claimer(second, "b"), claimer(store, "c"), claimer(second, "d")]);
    assert.equal(new Set(claimed).size, claimed.length, "no job claimed twice");
    assert.equal(claimed.length, jobs.length, "every job claimed");
  });

  testShared("a write fenced by a lease the other connection took over fails with LeaseLostError", async (store, second) => {
    const job = await insertSample(store, { status: "STARTED" });
    const lost = await store.claimJob(job.id, "worker-a", 0);
    assert.ok(lost);
    const taken = await second.claimJob(job.id, "worker-b", HOUR);
    assert.ok(taken);
    const fence = { owner: lost.owner, epoch: lost.epoch };
    await rejectsLeaseLost(store.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence }), job.id, fence);
    await rejectsLeaseLost(store.appendJournal(job.id, fence, 0, [{ index: 0, data: "intent" }]), job.id, fence);
    await second.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)], fence: { owner: taken.owner, epoch: taken.epoch } });
    assert.equal((await store.getJob(job.id))?.historyLength, 1);
  });

  testShared("a settlement on one connection wakes the job for the other", async (store, second) => {
    const job = await insertSample(store, { status: "SUSPENDED", wakeAt: null });
    await store.commit({ id: job.id, expectedVersion: 0, createFutures: [{ key: "k", jobId: job.id, kind: "message", wakeAt: null, data: null }] });
    assert.deepEqual(await store.claimRunnable("worker", HOUR, 5), []);
    const [settled, late] = await Promise.all([
      second.settleFuture("k", { state: "resolved", value: "hello", door: "message" }),
      store.settleFuture("k", { state: "resolved", value: "late", door: "message" }),
    ]);
    assert.equal([settled, late].filter((result) => result.settled).length, 1, "one writer wins across connections");
    assert.deepEqual((await store.claimRunnable("worker", HOUR, 5)).map((lease) => lease.jobId), [job.id]);
  });
}
