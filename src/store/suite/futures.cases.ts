/**
 * @module
 * Conformance cases: durable futures — created in a commit or under the lease, settled first-writer-wins (also
 * before anyone created them), waking a suspended job with a `future-settled` event, `wakeIfSettled` against a
 * settlement racing a suspension, cancellation, listing by state.
 */
import assert from "node:assert/strict";
import type { Fence, FutureSettlement, NewFuture } from "../durable-rows.ts";
import type { Store } from "../store.ts";
import { rejectsLeaseLost } from "./leases.cases.ts";
import { insertSample, type SuiteContext } from "./suite-context.ts";

const HOUR = 3_600_000;

const future = (jobId: string, key: string, overrides: Partial<NewFuture> = {}): NewFuture => ({
  key, jobId, kind: "external", wakeAt: null, data: { note: key }, ...overrides,
});

async function claimed(store: Store, status: "STARTED" | "SUSPENDED" = "STARTED"): Promise<{ id: string; fence: Fence }> {
  const job = await insertSample(store, { status });
  const lease = await store.claimJob(job.id, "worker", HOUR);
  assert.ok(lease);
  return { id: job.id, fence: { owner: lease.owner, epoch: lease.epoch } };
}

/** Defines the future cases. */
export function futureCases({ test }: SuiteContext): void {
  test("waitingFutures lists one kind's waiting futures across jobs, oldest first, up to a limit", async (store) => {
    const first = await claimed(store);
    const second = await claimed(store);
    await store.createFutures(first.id, first.fence, [future(first.id, "approval-1", { kind: "approval", data: { tool: "pay" } })]);
    await store.createFutures(second.id, second.fence, [future(second.id, "approval-2", { kind: "approval" }), future(second.id, "timer-2", { kind: "timer", wakeAt: 1 })]);
    await store.createFutures(first.id, first.fence, [future(first.id, "approval-3", { kind: "approval" })]);
    await store.settleFuture("approval-3", { state: "resolved", value: true, door: "decision" });
    const waiting = await store.waitingFutures({ kind: "approval" });
    assert.deepEqual(waiting.map((row) => [row.key, row.jobId]).sort(), [["approval-1", first.id], ["approval-2", second.id]]);
    assert.deepEqual(waiting[0]!.data === null ? null : typeof waiting[0]!.data, "object");
    assert.equal((await store.waitingFutures({ kind: "approval", limit: 1 })).length, 1);
    assert.deepEqual((await store.waitingFutures({ kind: "child" })), []);
    await assert.rejects(store.waitingFutures({ kind: "nonsense" as "child" }), /unknown kind/);
  });

  test("futures created in a commit and under the lease are listed oldest first, by state", async (store) => {
    const { id, fence } = await claimed(store);
    const before = Date.now();
    await store.createFutures(id, fence, [future(id, "b-timer", { kind: "timer", wakeAt: 1_800_000_000_000 })]);
    await store.commit({ id, expectedVersion: 0, createFutures: [future(id, "a-approval", { kind: "approval", data: { tool: "pay" } })], fence });
    const listed = await store.listFutures(id);
    assert.deepEqual(listed.map((row) => row.key).sort(), ["a-approval", "b-timer"]);
    const timer = await store.getFuture("b-timer");
    assert.ok(timer);
    assert.deepEqual({ ...timer, createdAt: 0 }, {
      key: "b-timer", jobId: id, kind: "timer", wakeAt: 1_800_000_000_000, state: "waiting", value: null, data: { note: "b-timer" },
      createdAt: 0, settledAt: null,
    });
    assert.ok(timer.createdAt >= before && timer.createdAt <= Date.now(), "createdAt is the store's clock");
    assert.ok(listed[0]!.createdAt <= listed[1]!.createdAt, "oldest first");
    await store.settleFuture("a-approval", { state: "resolved", value: { approved: true }, door: "decision" });
    assert.deepEqual((await store.listFutures(id, { state: "waiting" })).map((row) => row.key), ["b-timer"]);
    assert.deepEqual((await store.listFutures(id, { state: "resolved" })).map((row) => row.key), ["a-approval"]);
    assert.deepEqual(await store.listFutures("no-such-job"), []);
    assert.equal(await store.getFuture("no-such-key"), null);
  });

  test("settleFuture: the first writer wins", async (store) => {
    const { id, fence } = await claimed(store);
    await store.createFutures(id, fence, [future(id, "k")]);
    const [first, second] = await Promise.all([
      store.settleFuture("k", { state: "resolved", value: 1, door: "application" }),
      store.settleFuture("k", { state: "rejected", value: "too late", door: "application" }),
    ]);
    assert.equal(first.settled, true);
    assert.equal(second.settled, false);
    assert.deepEqual([first.future.state, first.future.value], ["resolved", 1]);
    assert.deepEqual(second.future, first.future, "the loser is shown the earlier settlement");
    assert.ok(first.future.settledAt !== null);
    assert.deepEqual(await store.getFuture("k"), first.future);
  });

  test("a settlement before the future is created is kept, and the job adopts it", async (store) => {
    const early = await store.settleFuture("webhook-17", { state: "resolved", value: { paid: true }, door: "application" });
    assert.equal(early.settled, true);
    assert.deepEqual([early.future.jobId, early.future.kind, early.future.state], [null, "external", "resolved"]);
    const { id, fence } = await claimed(store);
    await store.createFutures(id, fence, [future(id, "webhook-17", { kind: "external", data: { order: 17 } })]);
    const adopted = await store.getFuture("webhook-17");
    assert.deepEqual({ ...adopted, createdAt: 0 }, { ...early.future, jobId: id, data: { order: 17 }, createdAt: 0 });
    assert.deepEqual((await store.listFutures(id)).map((row) => row.key), ["webhook-17"]);
    assert.equal((await store.settleFuture("webhook-17", { state: "rejected", value: "no", door: "application" })).settled, false);
    await store.createFutures(id, fence, [future(id, "webhook-17", { data: "again" })]);
    assert.deepEqual((await store.getFuture("webhook-17"))?.data, { order: 17 }, "creating its own future again keeps it as it is");
  });

  test("a future key of another job is refused", async (store) => {
    const a = await claimed(store);
    const b = await claimed(store);
    await store.createFutures(a.id, a.fence, [future(a.id, "shared-key")]);
    await assert.rejects(store.createFutures(b.id, b.fence, [future(b.id, "shared-key")]), /the future key "shared-key" belongs to job/);
    await assert.rejects(store.createFutures(b.id, b.fence, [future(a.id, "other")]), /createFutures\[0\]\.jobId must be the job's id/);
  });

  test("settling wakes a SUSPENDED job and tells the outbox", async (store) => {
    const job = await insertSample(store, { status: "SUSPENDED", wakeAt: Date.now() + HOUR });
    await store.commit({ id: job.id, expectedVersion: 0, createFutures: [future(job.id, "approval-1", { kind: "approval" })] });
    const before = Date.now();
    const [last] = (await store.readEvents()).slice(-1);
    await store.settleFuture("approval-1", { state: "resolved", value: { note: "ok" }, door: "decision" });
    const after = await store.getJob(job.id);
    assert.ok(after?.wakeAt !== null && after!.wakeAt! >= before && after!.wakeAt! <= Date.now(), "wakeAt is now");
    assert.equal(after?.version, 1, "a wake-up is not a commit: the version does not change");
    const events = await store.readEvents({ afterId: last?.id ?? 0 });
    assert.deepEqual(events.map((event) => [event.jobId, event.kind, event.data]), [[job.id, "future-settled", { key: "approval-1", state: "resolved" }]]);
    const leases = await store.claimRunnable("worker", HOUR, 10);
    assert.deepEqual(leases.map((lease) => lease.jobId), [job.id], "the woken job is runnable at once");
  });

  test("settling the future of a job that is not suspended leaves its wakeAt alone", async (store) => {
    const { id, fence } = await claimed(store);
    await store.createFutures(id, fence, [future(id, "k")]);
    await store.settleFuture("k", { state: "rejected", value: { name: "Error", message: "boom" }, door: "application" });
    assert.equal((await store.getJob(id))?.wakeAt, null);
    assert.deepEqual((await store.readEvents({ jobId: id })).map((event) => event.kind), ["job-submitted", "future-settled"]);
  });

  test("wakeIfSettled wakes a job that suspends on a future settled meanwhile", async (store) => {
    const { id, fence } = await claimed(store);
    await store.createFutures(id, fence, [future(id, "raced"), future(id, "still-waiting")]);
    await store.settleFuture("raced", { state: "resolved", value: 42, door: "application" }); // the step has not seen it
    const before = Date.now();
    await store.commit({ id, expectedVersion: 0, job: { status: "SUSPENDED", wakeAt: null }, wakeIfSettled: ["still-waiting", "raced"], fence });
    const woken = await store.getJob(id);
    assert.equal(woken?.status, "SUSPENDED");
    assert.ok(woken?.wakeAt !== null && woken!.wakeAt! >= before, "woken at once");
    await store.commit({ id, expectedVersion: 1, job: { wakeAt: 1_900_000_000_000 }, wakeIfSettled: ["still-waiting"], fence });
    assert.equal((await store.getJob(id))?.wakeAt, 1_900_000_000_000, "nothing it waits for is settled: its timer stands");
  });

  test("cancelFutures cancels the job's waiting futures only", async (store) => {
    const { id, fence } = await claimed(store);
    const other = await claimed(store);
    await store.createFutures(id, fence, [future(id, "a"), future(id, "b")]);
    await store.createFutures(other.id, other.fence, [future(other.id, "c")]);
    await store.settleFuture("a", { state: "resolved", value: "kept", door: "application" });
    await store.commit({ id, expectedVersion: 0, job: { status: "CANCELLED" }, cancelFutures: true });
    const states = Object.fromEntries((await store.listFutures(id)).map((row) => [row.key, [row.state, row.value]]));
    assert.deepEqual(states, { a: ["resolved", "kept"], b: ["cancelled", null] });
    assert.equal((await store.getFuture("c"))?.state, "waiting");
    assert.equal((await store.settleFuture("b", { state: "resolved", value: 1, door: "application" })).settled, false, "a cancelled future stays cancelled");
  });

  test("createFutures outside a commit is fenced", async (store) => {
    const { id, fence } = await claimed(store);
    await store.renewLease(id, fence, 0);
    assert.ok(await store.claimJob(id, "worker-b", HOUR));
    await rejectsLeaseLost(store.createFutures(id, fence, [future(id, "k")]), id, fence);
    assert.equal(await store.getFuture("k"), null);
  });

  test("settlements and futures are checked", async (store) => {
    const { id, fence } = await claimed(store);
    await assert.rejects(store.settleFuture("", { state: "resolved", value: 1, door: "application" }), /key must be a non-empty string/);
    await assert.rejects(store.settleFuture("k", { state: "waiting" as "resolved", value: 1, door: "application" }), /settlement.state must be one of resolved, rejected, cancelled/);
    await assert.rejects(store.settleFuture("k", { state: "resolved", value: 1 } as FutureSettlement), /settlement.door must be one of application, decision, message, time, child-end/);
    await assert.rejects(store.createFutures(id, fence, [future(id, "t", { kind: "alarm" as "timer" })]), /kind must be one of timer, message, approval, child, external/);
    await assert.rejects(store.listFutures(id, { state: "done" as "resolved" }), /unknown state "done"/);
    assert.equal(await store.getFuture("k"), null);
  });
}
