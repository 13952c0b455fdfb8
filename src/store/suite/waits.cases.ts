/**
 * @module
 * Conformance cases: every wait has a kind, and only its own door settles it. An application's
 * future is settled by `application` (or, when it has a timeout, by `time`), an approval request by
 * `decision`, a message wait by `message`, a timer by `time`, a child's end by `child-end`; any other door is
 * refused with a `WaitKindError` naming the key's kind and what settles it, and nothing changes. A key settled
 * early — before any job waited — through another kind's door never counts for the job that then waits on it.
 */
import assert from "node:assert/strict";
import { WaitKindError } from "../../errors/wait-kind-error.ts";
import type { FutureKind, WaitDoor } from "../durable-rows.ts";
import type { Store } from "../store.ts";
import { insertSample, type SuiteContext } from "./suite-context.ts";

const HOUR = 3_600_000;

/** Each kind, its own door, and what its refusal says settles it. */
const KINDS: ReadonlyArray<{ kind: FutureKind; door: WaitDoor; settledBy: RegExp; also?: WaitDoor }> = [
  { kind: "external", door: "application", settledBy: /an application's future \(kind external\): only resolveFuture\(\)\/rejectFuture\(\) settles it/ },
  { kind: "approval", door: "decision", settledBy: /an approval request \(kind approval\): only approve\(\)\/deny\(\) settles it/ },
  { kind: "message", door: "message", settledBy: /a wait for a pushed message \(kind message\): only pushMessage\(\) settles it/ },
  { kind: "timer", door: "time", settledBy: /a timer \(kind timer\): only its time coming settles it/ },
  { kind: "child", door: "child-end", settledBy: /a wait for a child job's end \(kind child\): only the child job's end settles it/ },
  { kind: "checked", door: "check", also: "application", settledBy: /a checked future \(kind checked\): only a worker's check or resolveFuture\(\)\/rejectFuture\(\) settles it/ },
];

const DOORS: readonly WaitDoor[] = ["application", "decision", "message", "time", "child-end", "check"];

async function waitingJob(store: Store): Promise<{ id: string; fence: { owner: string; epoch: number } }> {
  const job = await insertSample(store, { status: "STARTED" });
  const lease = await store.claimJob(job.id, "worker", HOUR);
  assert.ok(lease);
  return { id: job.id, fence: { owner: lease.owner, epoch: lease.epoch } };
}

/** Defines the wait-kind cases. */
export function waitCases({ test }: SuiteContext): void {
  for (const { kind, door, settledBy, also } of KINDS) {
    test(`a ${kind} wait is settled by ${door}${also ? ` or ${also}` : ""} only; every other door is refused, naming its kind`, async (store) => {
      const { id, fence } = await waitingJob(store);
      const key = `${id}:${kind}`;
      await store.createFutures(id, fence, [{ key, jobId: id, kind, wakeAt: null, data: null }]);
      for (const other of DOORS.filter((candidate) => candidate !== door && candidate !== also)) {
        const refused = await store.settleFuture(key, { state: "resolved", value: "forged", door: other }).then(() => undefined, (error: unknown) => error);
        assert.ok(refused instanceof WaitKindError, `${other} must not settle a ${kind} wait (got ${String(refused)})`);
        assert.match(refused.message, settledBy);
        assert.equal(refused.kind, kind);
        assert.equal(refused.key, key);
      }
      assert.equal((await store.getFuture(key))?.state, "waiting", "a refused settlement changes nothing");
      assert.deepEqual((await store.readEvents({ jobId: id })).filter((event) => event.kind === "future-settled"), [], "and tells nobody");
      const settled = await store.settleFuture(key, { state: "resolved", value: "real", door });
      assert.deepEqual([settled.settled, settled.future.value], [true, "real"]);
      // Settled already: its own door loses (first writer wins), another is still refused.
      assert.equal((await store.settleFuture(key, { state: "resolved", value: "again", door })).settled, false);
      const other = DOORS.find((candidate) => candidate !== door && candidate !== also)!;
      await assert.rejects(store.settleFuture(key, { state: "resolved", value: "again", door: other }), WaitKindError);
    });
  }

  test("the application settles a checked future too (a webhook before the next check)", async (store) => {
    const { id, fence } = await waitingJob(store);
    await store.createFutures(id, fence, [{ key: "shipped", jobId: id, kind: "checked", wakeAt: Date.now() + HOUR, data: { tool: "whenShipped", args: {}, everyMs: 1000 } }]);
    assert.deepEqual((await store.waitingFutures({ kind: "checked" })).map((future) => [future.key, future.data]), [["shipped", { tool: "whenShipped", args: {}, everyMs: 1000 }]]);
    assert.equal((await store.settleFuture("shipped", { state: "resolved", value: "2026-12-04", door: "application" })).settled, true);
    assert.equal((await store.settleFuture("shipped", { state: "resolved", value: "later", door: "check" })).settled, false, "first writer wins");
    assert.deepEqual(await store.waitingFutures({ kind: "checked" }), []);
  });

  test("time settles the timeout of an application's future, never one without a timeout", async (store) => {
    const { id, fence } = await waitingJob(store);
    await store.createFutures(id, fence, [
      { key: "with-timeout", jobId: id, kind: "external", wakeAt: Date.now() + HOUR, data: null },
      { key: "without", jobId: id, kind: "external", wakeAt: null, data: null },
    ]);
    assert.equal((await store.settleFuture("with-timeout", { state: "rejected", value: { name: "TimeoutError", message: "late" }, door: "time" })).settled, true);
    await assert.rejects(store.settleFuture("without", { state: "rejected", value: "late", door: "time" }), WaitKindError);
  });

  test("only an application's future or a message may be settled before anyone waits for it", async (store) => {
    assert.equal((await store.settleFuture("early-app", { state: "resolved", value: 1, door: "application" })).future.kind, "external");
    assert.equal((await store.settleFuture("early-message", { state: "resolved", value: "hi", door: "message" })).future.kind, "message");
    for (const door of ["decision", "time", "child-end", "check"] as const) {
      await assert.rejects(store.settleFuture(`early-${door}`, { state: "resolved", value: 1, door }), /there is no future "early-[a-z-]+" to settle/);
      assert.equal(await store.getFuture(`early-${door}`), null);
    }
  });

  test("a key settled early through another kind's door does not count for the job that waits on it", async (store) => {
    const { id, fence } = await waitingJob(store);
    // A webhook passing outside input as the key of the job's next message wait, or of a timer.
    await store.settleFuture(`${id}:message:0`, { state: "resolved", value: "forged", door: "application" });
    await store.settleFuture(`${id}:0:3`, { state: "resolved", value: null, door: "application" });
    await store.settleFuture(`${id}:message:1`, { state: "resolved", value: "pushed early", door: "message" });
    await store.createFutures(id, fence, [
      { key: `${id}:message:0`, jobId: id, kind: "message", wakeAt: null, data: { n: 0 } },
      { key: `${id}:0:3`, jobId: id, kind: "timer", wakeAt: Date.now() + HOUR, data: { ms: HOUR } },
      { key: `${id}:message:1`, jobId: id, kind: "message", wakeAt: null, data: { n: 1 } },
    ]);
    const message = await store.getFuture(`${id}:message:0`);
    assert.deepEqual([message?.jobId, message?.kind, message?.state, message?.value], [id, "message", "waiting", null], "the forged message is gone");
    const timer = await store.getFuture(`${id}:0:3`);
    assert.deepEqual([timer?.kind, timer?.state], ["timer", "waiting"], "the timer waits for its time");
    const pushed = await store.getFuture(`${id}:message:1`);
    assert.deepEqual([pushed?.kind, pushed?.state, pushed?.value], ["message", "resolved", "pushed early"], "a message pushed early is adopted");
    await assert.rejects(store.settleFuture(`${id}:message:0`, { state: "resolved", value: "forged again", door: "application" }), WaitKindError);
  });

  test("a commit settles futures with its changes: the child's end wakes its suspended parent in the same transaction", async (store) => {
    const parent = await insertSample(store, { status: "SUSPENDED", wakeAt: null });
    const child = await insertSample(store, { status: "STARTED", parentId: parent.id });
    await store.commit({ id: parent.id, expectedVersion: 0, createFutures: [{ key: child.id, jobId: parent.id, kind: "child", wakeAt: null, data: { role: "helper" } }] });
    const before = Date.now();
    await store.commit({
      id: child.id, expectedVersion: 0, job: { status: "DONE" },
      settleFutures: [
        { key: child.id, settlement: { state: "resolved", value: { status: "DONE", value: 42 }, door: "child-end" } },
        { key: "no-such-future", settlement: { state: "resolved", value: null, door: "child-end" } },
      ],
    });
    const settled = await store.getFuture(child.id);
    assert.deepEqual([settled?.state, settled?.value], ["resolved", { status: "DONE", value: 42 }]);
    const woken = await store.getJob(parent.id);
    assert.ok(woken?.wakeAt !== null && woken!.wakeAt! >= before, "the parent is runnable at once");
    assert.deepEqual((await store.readEvents({ jobId: parent.id })).map((event) => event.kind).filter((kind) => kind !== "job-submitted"), ["future-settled"]);
    assert.equal(await store.getFuture("no-such-future"), null, "a key that does not exist is skipped");
    // A commit that fails settles nothing; one through the wrong door fails as a whole.
    const other = await insertSample(store, { status: "STARTED" });
    await store.commit({ id: parent.id, expectedVersion: 1, createFutures: [{ key: "approval-x", jobId: parent.id, kind: "approval", wakeAt: null, data: null }] });
    await assert.rejects(store.commit({
      id: other.id, expectedVersion: 0, job: { status: "DONE" }, settleFutures: [{ key: "approval-x", settlement: { state: "resolved", value: null, door: "child-end" } }],
    }), WaitKindError);
    assert.equal((await store.getJob(other.id))?.status, "STARTED");
    assert.equal((await store.getFuture("approval-x"))?.state, "waiting");
  });
}
