/**
 * @module
 * Conformance cases: leases (claim, renew, release, expiry by the store's clock), fencing of every write of a
 * step, `claimRunnable` (which jobs, oldest first, never the same job twice) and `nextClaim`. A lease of 0 ms
 * has expired the moment it is taken, which lets the cases test expiry without waiting.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { LeaseLostError } from "../../errors/lease-lost-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import type { Lease } from "../durable-rows.ts";
import type { JobStatus, Store } from "../store.ts";
import { insertSample, sampleRecord, type SuiteContext } from "./suite-context.ts";

const HOUR = 3_600_000;

/** Asserts `write` fails with a LeaseLostError naming the job and the fence. */
export async function rejectsLeaseLost(write: Promise<unknown>, jobId: string, fence: { owner: string; epoch: number }): Promise<void> {
  await assert.rejects(write, (error: unknown) => {
    assert.ok(error instanceof LeaseLostError, String(error));
    assert.equal(error.jobId, jobId);
    assert.equal(error.owner, fence.owner);
    assert.equal(error.epoch, fence.epoch);
    assert.equal(error.isRetryable, false);
    assert.match(error.message, new RegExp(`^job ${jobId}: the lease of ${fence.owner} \\(epoch ${fence.epoch}\\) was lost`));
    return true;
  });
}

/** Claims `jobId`, asserting that the claim succeeds. */
async function claim(store: Store, jobId: string, owner: string, leaseMs: number): Promise<Lease> {
  const lease = await store.claimJob(jobId, owner, leaseMs);
  assert.ok(lease !== null, `${owner} claims ${jobId}`);
  return lease;
}

const fenceOf = (lease: Lease) => ({ owner: lease.owner, epoch: lease.epoch });

/** Defines the lease cases. */
export function leaseCases({ test }: SuiteContext): void {
  test("claimJob takes a lease until now + leaseMs, with the next epoch", async (store) => {
    const job = await insertSample(store);
    assert.equal(await store.getLease(job.id), null, "a job never claimed has no lease");
    const before = Date.now();
    const lease = await claim(store, job.id, "worker-a", 30_000);
    const after = Date.now();
    assert.deepEqual([lease.jobId, lease.owner, lease.epoch], [job.id, "worker-a", 1]);
    assert.ok(lease.until >= before + 30_000 && lease.until <= after + 30_000, `until ${lease.until} is now + 30 s`);
    assert.deepEqual(await store.getLease(job.id), lease);
    assert.deepEqual(await store.getJob(job.id), job, "a claim is not a commit: the job row is unchanged");
  });

  test("a live lease blocks every claim, its holder's too", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", HOUR);
    assert.equal(await store.claimJob(job.id, "worker-b", HOUR), null);
    assert.equal(await store.claimJob(job.id, "worker-a", HOUR), null);
    assert.deepEqual(await store.getLease(job.id), lease);
  });

  test("an expired lease makes the job claimable, and the claim bumps the epoch", async (store) => {
    const job = await insertSample(store);
    await claim(store, job.id, "worker-a", 0);
    const second = await claim(store, job.id, "worker-b", HOUR);
    assert.deepEqual([second.owner, second.epoch], ["worker-b", 2]);
  });

  test("claimJob takes any job that is not final and refuses final and unknown ones", async (store) => {
    const claimable: JobStatus[] = ["READY", "WARMING_UP", "STARTED", "SUSPENDED"];
    for (const status of claimable) {
      const job = await insertSample(store, { status, wakeAt: status === "SUSPENDED" ? Date.now() + HOUR : null });
      assert.ok(await store.claimJob(job.id, "worker", HOUR), `a ${status} job is claimable`);
    }
    for (const status of ["DONE", "FAILED", "CANCELLED"] as const) {
      const job = await insertSample(store, { status });
      assert.equal(await store.claimJob(job.id, "worker", HOUR), null, `a ${status} job is not`);
      assert.equal(await store.getLease(job.id), null);
    }
    assert.equal(await store.claimJob(randomUUID(), "worker", HOUR), null);
  });

  test("preemptJob takes a job under another owner's live lease, voiding the holder's fence at once", async (store) => {
    const job = await insertSample(store);
    const held = await claim(store, job.id, "worker-a", HOUR);
    const before = Date.now();
    const taken = await store.preemptJob(job.id, "operator", 30_000);
    assert.ok(taken !== null, "a live lease does not stop a preemption");
    assert.deepEqual([taken.owner, taken.epoch], ["operator", 2]);
    assert.ok(taken.until >= before + 30_000);
    assert.deepEqual(await store.getLease(job.id), taken);
    const fence = fenceOf(held);
    assert.equal(await store.renewLease(job.id, fence, HOUR), null, "the old holder cannot renew");
    await rejectsLeaseLost(store.appendJournal(job.id, fence, 0, [{ index: 0, data: "late" }]), job.id, fence);
    await rejectsLeaseLost(store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 }, fence }), job.id, fence);
    assert.equal(await store.getJournal(job.id), null);
    await store.commit({ id: job.id, expectedVersion: 0, job: { status: "CANCELLED" }, fence: fenceOf(taken), releaseLease: true });
    assert.equal((await store.getJob(job.id))!.status, "CANCELLED");
    assert.equal(await store.preemptJob(job.id, "operator", HOUR), null, "a final job cannot be preempted");
    assert.equal(await store.preemptJob(randomUUID(), "operator", HOUR), null, "nor an unknown one");
    const free = await insertSample(store);
    assert.equal((await store.preemptJob(free.id, "operator", HOUR))?.epoch, 1, "a job nobody holds is simply claimed");
    await assert.rejects(store.preemptJob(free.id, "", HOUR), /owner/);
  });

  test("a commit whose lease was lost writes nothing, and the writes of its tick still land", async (store) => {
    const [lost, kept] = [await insertSample(store), await insertSample(store)];
    const stale = fenceOf(await claim(store, lost.id, "worker-a", HOUR));
    await store.preemptJob(lost.id, "operator", HOUR);
    const held = fenceOf(await claim(store, kept.id, "worker-a", HOUR));
    const variable = { name: "v", blob: "1", position: 0 };
    const step = (id: string, fence: { owner: string; epoch: number }) => store.commit({
      id, expectedVersion: 0, fence, job: { turns: 1 }, putVariables: [variable], appendHistory: [sampleRecord(0)],
      events: [{ kind: "step", data: { id } }],
    });
    // Same tick, one batch: the kept job's writes before and after the one that fails.
    const results = await Promise.allSettled([
      store.appendJournal(kept.id, held, 0, [{ index: 0, data: "a" }]),
      step(lost.id, stale),
      store.appendJournal(lost.id, stale, 0, [{ index: 0, data: "late" }]),
      step(kept.id, held),
    ]);
    assert.deepEqual(results.map((result) => result.status), ["fulfilled", "rejected", "rejected", "fulfilled"]);
    await rejectsLeaseLost(Promise.reject((results[1] as PromiseRejectedResult).reason), lost.id, stale);
    await rejectsLeaseLost(Promise.reject((results[2] as PromiseRejectedResult).reason), lost.id, stale);
    const after = await store.getJob(lost.id);
    assert.deepEqual([after?.version, after?.turns, after?.historyLength], [lost.version, lost.turns, 0]);
    assert.deepEqual(await store.getVariables(lost.id), []);
    assert.equal(await store.getJournal(lost.id), null);
    assert.deepEqual((await store.readEvents({ jobId: lost.id })).map((event) => event.kind), ["job-submitted"]);
    assert.deepEqual((await store.readEvents({ jobId: kept.id })).map((event) => event.kind), ["job-submitted", "step"]);
    assert.deepEqual((await store.getJob(kept.id))?.turns, 1);
    assert.deepEqual(await store.getVariables(kept.id), [variable]);
    assert.equal((await store.getJournal(kept.id))?.entries.length, 1);
  });

  test("renewLease extends the holder's lease, even expired, until somebody claims", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", 0);
    const before = Date.now();
    const renewed = await store.renewLease(job.id, fenceOf(lease), 20_000);
    assert.ok(renewed !== null, "an expired lease nobody claimed is still the holder's");
    assert.deepEqual([renewed.owner, renewed.epoch], ["worker-a", 1]);
    assert.ok(renewed.until >= before + 20_000, "renewed from now");
    assert.deepEqual(await store.getLease(job.id), renewed);
    assert.equal(await store.renewLease(job.id, { owner: "worker-b", epoch: 1 }, 20_000), null, "another owner cannot renew it");
    assert.equal(await store.renewLease(job.id, { owner: "worker-a", epoch: 2 }, 20_000), null, "nor another epoch");
    await store.renewLease(job.id, fenceOf(lease), 0);
    await claim(store, job.id, "worker-b", HOUR);
    assert.equal(await store.renewLease(job.id, fenceOf(lease), 20_000), null, "after a claim the old holder cannot renew");
    assert.equal(await store.renewLease(randomUUID(), fenceOf(lease), 20_000), null);
  });

  test("releaseLease frees the job at once and ends the fence", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", HOUR);
    await store.releaseLease(job.id, { owner: "worker-b", epoch: 1 });
    assert.deepEqual(await store.getLease(job.id), lease, "a release by somebody else does nothing");
    await store.releaseLease(job.id, fenceOf(lease));
    assert.equal(await store.getLease(job.id), null);
    assert.equal(await store.renewLease(job.id, fenceOf(lease), HOUR), null, "a released lease cannot be renewed");
    await rejectsLeaseLost(store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 }, fence: fenceOf(lease) }), job.id, fenceOf(lease));
    const next = await claim(store, job.id, "worker-b", HOUR);
    assert.equal(next.epoch, 2, "the next claim still bumps the epoch");
    await store.releaseLease(randomUUID(), fenceOf(lease)); // an unknown job: nothing to do
  });

  test("fenced writes of a lease another worker took over fail with LeaseLostError and write nothing", async (store) => {
    const job = await insertSample(store);
    const old = await claim(store, job.id, "worker-a", 0);
    const current = await claim(store, job.id, "worker-b", HOUR);
    const fence = fenceOf(old);
    await rejectsLeaseLost(store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 }, appendHistory: [sampleRecord(0)], fence }), job.id, fence);
    await rejectsLeaseLost(store.appendJournal(job.id, fence, 0, [{ index: 0, data: { intent: "pay" } }]), job.id, fence);
    await rejectsLeaseLost(store.createFutures(job.id, fence, [{ key: `${job.id}:0:1`, jobId: job.id, kind: "timer", wakeAt: 1, data: null }]), job.id, fence);
    assert.deepEqual(await store.getJob(job.id), job);
    assert.equal(await store.getJournal(job.id), null);
    assert.deepEqual(await store.listFutures(job.id), []);
    const error = await store.commit({ id: job.id, expectedVersion: 0, fence }).catch((caught: unknown) => caught);
    assert.ok(error instanceof LeaseLostError);
    assert.deepEqual([error.currentOwner, error.currentEpoch], ["worker-b", 2]);
    assert.match(error.message, /worker-b holds the job now \(epoch 2\)/);
    // The current holder writes; a fence is checked before the version, so a stale step learns it lost the job.
    await store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 }, fence: fenceOf(current) });
    await rejectsLeaseLost(store.commit({ id: job.id, expectedVersion: 0, fence }), job.id, fence);
  });

  test("a step whose lease expired but was not taken over still commits", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", 0);
    await store.appendJournal(job.id, fenceOf(lease), 0, [{ index: 0, data: "intent" }]);
    await store.commit({ id: job.id, expectedVersion: 0, job: { status: "STARTED" }, fence: fenceOf(lease) });
    assert.equal((await store.getJob(job.id))?.status, "STARTED");
  });

  test("a commit without a fence ignores leases (a client's write)", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", HOUR);
    await store.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0, { text: "a pushed message" })] });
    assert.equal((await store.getJob(job.id))?.historyLength, 1);
    assert.deepEqual(await store.getLease(job.id), lease, "the lease is untouched");
  });

  test("a commit may release its lease", async (store) => {
    const job = await insertSample(store);
    const lease = await claim(store, job.id, "worker-a", HOUR);
    await store.commit({ id: job.id, expectedVersion: 0, job: { status: "SUSPENDED", wakeAt: null }, fence: fenceOf(lease), releaseLease: true });
    assert.equal(await store.getLease(job.id), null);
    assert.equal((await claim(store, job.id, "worker-b", HOUR)).epoch, 2);
  });

  test("claimRunnable takes active jobs and due SUSPENDED ones, never others", async (store) => {
    const now = Date.now();
    const take = [
      await insertSample(store, { status: "READY", createdAt: 1 }),
      await insertSample(store, { status: "WARMING_UP", createdAt: 2 }),
      await insertSample(store, { status: "STARTED", createdAt: 3 }),
      await insertSample(store, { status: "SUSPENDED", wakeAt: now - 1_000, createdAt: 4 }),
    ];
    for (const [status, wakeAt] of [["SUSPENDED", now + HOUR], ["SUSPENDED", null], ["DONE", null], ["FAILED", null], ["CANCELLED", now - 1_000]] as const) {
      await insertSample(store, { status, wakeAt });
    }
    const leases = await store.claimRunnable("worker", HOUR, 100);
    assert.deepEqual(new Set(leases.map((lease) => lease.jobId)), new Set(take.map((job) => job.id)));
    for (const lease of leases) {
      assert.deepEqual([lease.owner, lease.epoch], ["worker", 1]);
      assert.deepEqual(await store.getLease(lease.jobId), lease);
    }
    assert.deepEqual(await store.claimRunnable("other", HOUR, 100), [], "claimed jobs have live leases");
  });

  test("claimRunnable skips live leases and takes expired ones", async (store) => {
    const held = await insertSample(store, { createdAt: 1 });
    const expired = await insertSample(store, { createdAt: 2 });
    await claim(store, held.id, "worker-a", HOUR);
    await claim(store, expired.id, "worker-a", 0);
    const leases = await store.claimRunnable("worker-b", HOUR, 10);
    assert.deepEqual(leases.map((lease) => [lease.jobId, lease.epoch]), [[expired.id, 2]]);
  });

  test("claimRunnable filters by role, honours the limit and takes the oldest first", async (store) => {
    const now = Date.now();
    const first = await insertSample(store, { role: "planner", createdAt: 1_000 });
    const woken = await insertSample(store, { role: "planner", status: "SUSPENDED", createdAt: 1, wakeAt: 2_000 });
    const third = await insertSample(store, { role: "planner", status: "STARTED", createdAt: 3_000 });
    const other = await insertSample(store, { role: "coder", createdAt: 500 });
    const late = await insertSample(store, { role: "planner", status: "SUSPENDED", createdAt: 2, wakeAt: now - 10 });
    assert.deepEqual(await store.claimRunnable("w", HOUR, 0), []);
    assert.deepEqual(await store.claimRunnable("w", HOUR, 5, { roles: [] }), []);
    const two = await store.claimRunnable("w", HOUR, 2, { roles: ["planner"] });
    assert.deepEqual(two.map((lease) => lease.jobId), [first.id, woken.id], "by createdAt, a woken job by its wakeAt");
    const rest = await store.claimRunnable("w", HOUR, 5, { roles: ["planner", "reviewer"] });
    assert.deepEqual(rest.map((lease) => lease.jobId), [third.id, late.id]);
    assert.deepEqual((await store.claimRunnable("w", HOUR, 5)).map((lease) => lease.jobId), [other.id]);
  });

  test("concurrent claimRunnable calls never claim the same job", async (store) => {
    const jobs = await Promise.all(Array.from({ length: 30 }, (_, index) => insertSample(store, { createdAt: index })));
    const claims = await Promise.all(Array.from({ length: 12 }, (_, index) => store.claimRunnable(`worker-${index}`, HOUR, 4)));
    const claimed = claims.flat().map((lease) => lease.jobId);
    assert.equal(new Set(claimed).size, claimed.length, "no job twice");
    assert.deepEqual(new Set(claimed), new Set(jobs.map((job) => job.id)), "every job once");
  });

  test("nextClaim says how long until a job can be claimed, and whether one is leased", async (store) => {
    assert.deepEqual(await store.nextClaim(), { inMs: null, leased: false }, "an empty store waits for a write");
    const now = Date.now();
    await insertSample(store, { status: "SUSPENDED", wakeAt: null });
    assert.deepEqual(await store.nextClaim(), { inMs: null, leased: false }, "a job waiting for a settlement is not claimable by time");
    const timed = await insertSample(store, { role: "coder", status: "SUSPENDED", wakeAt: now + 5_000 });
    const untilTimer = await store.nextClaim();
    assert.ok(untilTimer.inMs !== null && untilTimer.inMs > 2_000 && untilTimer.inMs <= 5_000, `until the timer: ${untilTimer.inMs}`);
    assert.deepEqual(await store.nextClaim({ roles: ["assistant"] }), { inMs: null, leased: false }, "only the roles asked for count");
    const ready = await insertSample(store, { status: "READY" });
    assert.deepEqual(await store.nextClaim(), { inMs: 0, leased: false }, "an active job nobody holds: now");
    await claim(store, ready.id, "worker", HOUR);
    const held = await store.nextClaim();
    assert.equal(held.leased, true);
    assert.ok(held.inMs !== null && held.inMs > 2_000 && held.inMs <= 5_000, `the timer comes before the lease ends: ${held.inMs}`);
    await claim(store, timed.id, "other", 1_000);
    const coder = await store.nextClaim({ roles: ["coder"] });
    assert.equal(coder.leased, true);
    assert.ok(coder.inMs !== null && coder.inMs > 0 && coder.inMs <= 1_000, `a held timer waits for its lease to end: ${coder.inMs}`);
    await insertSample(store, { status: "SUSPENDED", wakeAt: now - 1_000 });
    assert.deepEqual(await store.nextClaim({ roles: ["assistant"] }), { inMs: 0, leased: true }, "a job whose wakeAt has come: now");
    assert.deepEqual(await store.nextClaim({ roles: ["nobody"] }), { inMs: null, leased: false });
    assert.deepEqual(await store.nextClaim({ roles: [] }), { inMs: null, leased: false });
  });

  test("leaseOwners names the holders of live leases; expireLeases frees one owner's jobs for claims at once", async (store) => {
    if (!store.leaseOwners || !store.expireLeases) return;
    const [gone, alive, lapsed] = [`gone-${randomUUID()}`, `alive-${randomUUID()}`, `lapsed-${randomUUID()}`];
    const first = await claim(store, (await insertSample(store, { createdAt: 1 })).id, gone, HOUR);
    const second = await claim(store, (await insertSample(store, { createdAt: 2 })).id, gone, HOUR);
    const kept = await claim(store, (await insertSample(store, { createdAt: 3 })).id, alive, HOUR);
    await claim(store, (await insertSample(store, { createdAt: 4 })).id, lapsed, 0);
    const released = await claim(store, (await insertSample(store, { createdAt: 5 })).id, `released-${randomUUID()}`, HOUR);
    await store.releaseLease(released.jobId, fenceOf(released));
    const owners = await store.leaseOwners();
    assert.deepEqual(owners.filter((owner) => [gone, alive, lapsed].includes(owner)).sort(), [alive, gone].sort(), "each live holder once; expired and released leases name nobody");
    assert.equal(await store.expireLeases(gone), 2);
    assert.equal(await store.expireLeases(gone), 0, "nothing is left to expire");
    assert.ok(!(await store.leaseOwners()).includes(gone));
    assert.deepEqual((await store.getLease(first.jobId))?.epoch, first.epoch, "the epoch is bumped by the next claim, not here");
    const taken = (await store.claimRunnable("worker-b", HOUR, 10)).map((lease) => lease.jobId);
    assert.ok(taken.includes(first.jobId) && taken.includes(second.jobId), "the gone owner's jobs are claimable now");
    assert.ok(!taken.includes(kept.jobId), "another owner's live lease still holds");
    assert.equal(await store.renewLease(first.jobId, fenceOf(first), HOUR), null, "the gone owner's fence is void once another claimed");
    await assert.rejects(store.expireLeases(""), /owner must be a non-empty string/);
  });

  test("lease calls check their arguments", async (store) => {
    const job = await insertSample(store);
    await assert.rejects(store.claimJob(job.id, "", 1000), /owner must be a non-empty string/);
    await assert.rejects(store.claimJob(job.id, "w", -1), /leaseMs must be a non-negative integer/);
    await assert.rejects(store.claimRunnable("w", 1000, 1.5), /limit must be a non-negative integer/);
    await assert.rejects(store.claimRunnable("w", 1000, 1, { roles: [""] }), /roles\[0\] must be a non-empty string/);
    await assert.rejects(store.renewLease(job.id, { owner: "w", epoch: -1 }, 1000), /fence.epoch must be a non-negative integer/);
    await assert.rejects(store.appendJournal(randomUUID(), { owner: "w", epoch: 1 }, 0, []), (error) => error instanceof NoSuchJobError);
    assert.equal(await store.getLease(job.id), null);
  });
}
