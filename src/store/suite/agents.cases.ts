/**
 * @module
 * Conformance cases: agents that run themselves — queued events (FIFO per role, one job per event, taken
 * atomically), an agentic loop's count (`queueSize − READY − WARMING_UP`, counted under the agent's lock),
 * the circuit breaker (opened by failures in a row or at once, closed by a reset, an `agent-breaker` event
 * each time), and two connections creating jobs for one role at once without overshooting or doubling.
 */
import assert from "node:assert/strict";
import type { AgentEventRow, AgentJobsRequest, NewJobRows } from "../agent-rows.ts";
import type { Store } from "../store.ts";
import { insertSample, sampleJob, type SuiteContext } from "./suite-context.ts";

/** The rows of a new job of `role`; an event's blob becomes its variable `event`. */
function jobFor(role: string, event: AgentEventRow | undefined): NewJobRows {
  const job = sampleJob({ role, params: event ? { eventId: event.id } : {} });
  return { job, variables: event ? [{ name: "event", blob: event.blob, position: 0 }] : [], history: [] };
}

const loop = (role: string, queueSize: number, limit: number): AgentJobsRequest => ({
  role, limit, source: { kind: "loop", queueSize }, build: (event) => jobFor(role, event),
});
const events = (role: string, limit: number): AgentJobsRequest => ({ role, limit, source: { kind: "events" }, build: (event) => jobFor(role, event) });

async function jobsOf(store: Store, role: string) {
  return store.listJobs({ role, limit: 1000 });
}

/** Ends a job of `role` as `status`, counting it for the breaker (as a step's final commit does). */
async function end(store: Store, role: string, status: "DONE" | "FAILED", options: { threshold?: number; opensAtOnce?: boolean } = {}): Promise<string> {
  const job = await insertSample(store, { role, status: "STARTED" });
  await store.commit({
    id: job.id, expectedVersion: 0, job: { status },
    agentOutcome: status === "DONE" ? { failed: false } : { failed: true, reason: `job ${job.id} failed`, threshold: options.threshold ?? 3, opensAtOnce: options.opensAtOnce ?? false },
  });
  return job.id;
}

/** Defines the agent cases. */
export function agentCases({ test, testShared }: SuiteContext): void {
  test("pushed events queue per role in FIFO order; each becomes one job, its blob the job's variable", async (store) => {
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await store.pushAgentEvent("triage", JSON.stringify({ n })));
    await store.pushAgentEvent("other", "x");
    assert.ok(ids[0]! < ids[1]! && ids[1]! < ids[2]!, "ids grow in push order");
    assert.deepEqual((await store.agents(["triage", "other", "unknown"])).map((agent) => [agent.role, agent.queuedEvents, agent.breaker]),
      [["triage", 3, "closed"], ["other", 1, "closed"], ["unknown", 0, "closed"]]);
    assert.deepEqual((await store.peekAgentEvents("triage")).map((event) => event.blob), ['{"n":1}', '{"n":2}', '{"n":3}'], "peeking takes nothing");
    const first = await store.createAgentJobs(events("triage", 2));
    assert.equal(first.jobIds.length, 2);
    assert.equal(first.breaker, "closed");
    const blobs = await Promise.all(first.jobIds.map(async (id) => (await store.getVariables(id))[0]?.blob));
    assert.deepEqual(blobs, ['{"n":1}', '{"n":2}'], "oldest first, one job per event");
    assert.deepEqual((await store.peekAgentEvents("triage")).map((event) => event.blob), ['{"n":3}'], "the limit leaves the rest queued");
    const second = await store.createAgentJobs(events("triage", 10));
    assert.equal(second.jobIds.length, 1);
    assert.equal((await store.createAgentJobs(events("triage", 10))).jobIds.length, 0, "an empty queue makes nothing");
    assert.equal((await store.agents(["other"]))[0]!.queuedEvents, 1, "other roles' events stay");
    const submitted = (await store.readEvents()).filter((event) => event.kind === "job-submitted");
    assert.ok(first.jobIds.every((id) => submitted.some((event) => event.jobId === id)), "each job is submitted like any other");
  });

  test("jobs created for an owner (claimFor) are leased to it, epoch 1: nobody else claims them, its fence commits", async (store) => {
    await store.pushAgentEvent("triage", "a");
    const made = await store.createAgentJobs({ ...events("triage", 5), claimFor: { owner: "worker-a", leaseMs: 60_000 } });
    const looped = await store.createAgentJobs({ ...loop("triage", 3, 5), claimFor: { owner: "worker-a", leaseMs: 60_000 } });
    const ids = [...made.jobIds, ...looped.jobIds];
    assert.equal(ids.length, 3, "one from the event; the loop counts it pending and adds two");
    const leases = [...made.leases!, ...looped.leases!];
    assert.deepEqual(leases.map((lease) => [lease.jobId, lease.owner, lease.epoch]), ids.map((id) => [id, "worker-a", 1]));
    for (const lease of leases) assert.deepEqual(await store.getLease(lease.jobId), lease, "the lease is stored as returned");
    assert.deepEqual(await store.claimRunnable("worker-b", 60_000, 10), [], "leased jobs are not claimable by another");
    const [first] = leases;
    await store.commit({ id: first!.jobId, expectedVersion: 0, fence: first!, job: { status: "STARTED" } });
    assert.equal((await store.getJob(first!.jobId))!.status, "STARTED", "the creator's fence is the job's");
    assert.equal((await store.createAgentJobs(events("triage", 5))).leases, undefined, "without claimFor: no leases");
    await assert.rejects(store.createAgentJobs({ ...loop("triage", 9, 1), claimFor: { owner: "", leaseMs: 1000 } }), /claimFor\.owner/);
  });

  test("a build that throws takes no event and creates no job", async (store) => {
    await store.pushAgentEvent("triage", "a");
    await store.pushAgentEvent("triage", "b");
    let built = 0;
    const request: AgentJobsRequest = {
      role: "triage", limit: 5, source: { kind: "events" },
      build: (event) => {
        if (++built === 2) throw new Error("cannot bind the event");
        return jobFor("triage", event);
      },
    };
    await assert.rejects(store.createAgentJobs(request), /cannot bind the event/);
    assert.equal((await jobsOf(store, "triage")).length, 0);
    assert.equal((await store.peekAgentEvents("triage")).length, 2);
  });

  test("a loop keeps min(limit, queueSize − READY − WARMING_UP jobs of the agent)", async (store) => {
    assert.equal((await store.createAgentJobs(loop("triage", 10, 3))).jobIds.length, 3, "queue 10, capacity 3");
    assert.equal((await store.createAgentJobs(loop("triage", 5, 10))).jobIds.length, 2, "queue 5 with 3 READY: 2 more");
    assert.equal((await store.createAgentJobs(loop("triage", 5, 10))).jobIds.length, 0, "queue reached");
    assert.equal((await store.createAgentJobs(loop("triage", 0, 10))).jobIds.length, 0, "an empty queue");
    assert.equal((await store.createAgentJobs(loop("triage", 100, 0))).jobIds.length, 0, "no capacity");
    assert.equal((await store.createAgentJobs(loop("triage", -4, 10))).jobIds.length, 0, "a negative size");
    const [agent] = await store.agents(["triage"]);
    assert.equal(agent!.loopSize, -4, "the size the loop read last is kept for operators");
    assert.ok(agent!.loopAt !== null);
    await insertSample(store, { role: "other", status: "READY" });
    await insertSample(store, { role: "fresh", status: "WARMING_UP" });
    for (const status of ["STARTED", "SUSPENDED", "DONE", "FAILED", "CANCELLED"] as const) await insertSample(store, { role: "fresh", status });
    assert.equal((await store.createAgentJobs(loop("fresh", 3, 10))).jobIds.length, 2, "WARMING_UP counts; other statuses and other agents' jobs do not");
  });

  test("FAILED jobs in a row open the breaker at the threshold; a DONE job clears the count", async (store) => {
    await end(store, "triage", "FAILED");
    await end(store, "triage", "FAILED");
    await end(store, "triage", "DONE");
    await end(store, "triage", "FAILED");
    await end(store, "triage", "FAILED");
    let [agent] = await store.agents(["triage"]);
    assert.deepEqual([agent!.breaker, agent!.failures, agent!.reason, agent!.openedAt], ["closed", 2, null, null]);
    const before = Date.now();
    const last = await end(store, "triage", "FAILED");
    [agent] = await store.agents(["triage"]);
    assert.equal(agent!.breaker, "open");
    assert.equal(agent!.failures, 3);
    assert.match(agent!.reason!, new RegExp(`^3 jobs in a row failed; the last: job ${last} failed$`));
    assert.ok(agent!.openedAt! >= before - 1000);
    const breakerEvents = (await store.readEvents()).filter((event) => event.kind === "agent-breaker");
    assert.deepEqual(breakerEvents.map((event) => [event.jobId, event.data]), [[last, { role: "triage", state: "open", reason: agent!.reason }]]);
    await end(store, "triage", "FAILED");
    assert.equal((await store.readEvents()).filter((event) => event.kind === "agent-breaker").length, 1, "an open breaker opens once");
  });

  test("a warmup failure opens the breaker at once; an open breaker creates nothing and keeps the queued events", async (store) => {
    await store.pushAgentEvent("triage", "kept");
    await end(store, "triage", "FAILED", { opensAtOnce: true });
    const [agent] = await store.agents(["triage"]);
    assert.equal(agent!.breaker, "open");
    assert.match(agent!.reason!, /^job .* failed$/);
    assert.deepEqual(await store.createAgentJobs(events("triage", 5)), { jobIds: [], breaker: "open" });
    assert.deepEqual(await store.createAgentJobs(loop("triage", 5, 5)), { jobIds: [], breaker: "open" });
    assert.equal((await store.peekAgentEvents("triage")).length, 1);
    assert.equal(await store.resetAgent("triage"), true);
    assert.deepEqual((await store.agents(["triage"])).map((row) => [row.breaker, row.failures, row.reason, row.openedAt, row.queuedEvents]), [["closed", 0, null, null, 1]]);
    const reset = (await store.readEvents()).filter((event) => event.kind === "agent-breaker").at(-1)!;
    assert.deepEqual([reset.jobId, reset.data], ["", { role: "triage", state: "closed" }]);
    assert.equal(await store.resetAgent("triage"), false, "a closed breaker is not reset again");
    assert.equal((await store.createAgentJobs(events("triage", 5))).jobIds.length, 1, "the kept event becomes a job after the reset");
  });

  test("agents() without roles lists every role with a breaker row or queued events", async (store) => {
    await store.pushAgentEvent("b-role", "x");
    await end(store, "a-role", "DONE");
    assert.deepEqual((await store.agents()).map((agent) => [agent.role, agent.queuedEvents]), [["a-role", 0], ["b-role", 1]]);
    assert.deepEqual(await store.agents([]), []);
  });

  test("agent calls check their input", async (store) => {
    await assert.rejects(store.pushAgentEvent("", "x"), /pushAgentEvent: role must be a non-empty string/);
    await assert.rejects(store.pushAgentEvent("triage", 5 as never), /pushAgentEvent: blob must be a string/);
    await assert.rejects(store.createAgentJobs({ ...loop("triage", 1, 1), limit: -1 }), /createAgentJobs: limit must be a non-negative integer/);
    await assert.rejects(store.createAgentJobs({ ...loop("triage", 1, 1), source: { kind: "sometimes" } as never }), /createAgentJobs: source.kind must be "loop" or "events"/);
    await assert.rejects(store.createAgentJobs({ ...loop("triage", 1, 1), build: (event) => jobFor("other", event) }), /has role 'other'/);
    const job = await insertSample(store, { status: "STARTED" });
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, job: { status: "FAILED" }, agentOutcome: { failed: true, reason: "x", threshold: 0, opensAtOnce: false } }),
      /agentOutcome.threshold must be an integer of at least 1/);
  });

  testShared("two connections running one loop never overshoot its queue", async (store, second) => {
    const rounds = await Promise.all(Array.from({ length: 6 }, (_, index) => (index % 2 ? second : store).createAgentJobs(loop("triage", 7, 5))));
    assert.equal(rounds.reduce((sum, round) => sum + round.jobIds.length, 0), 7);
    assert.equal((await jobsOf(store, "triage")).length, 7);
  });

  testShared("two connections taking one role's events make exactly one job per event", async (store, second) => {
    const pushed = [];
    for (let n = 0; n < 12; n++) pushed.push(await (n % 2 ? second : store).pushAgentEvent("triage", `e${n}`));
    const rounds = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 ? second : store).createAgentJobs(events("triage", 2))));
    const jobIds = rounds.flatMap((round) => round.jobIds);
    assert.equal(jobIds.length, 12);
    const eventIds = (await jobsOf(store, "triage")).map((job) => job.params.eventId).sort((a, b) => Number(a) - Number(b));
    assert.deepEqual(eventIds, pushed);
    assert.equal((await store.peekAgentEvents("triage")).length, 0);
    assert.equal(new Set(jobIds).size, 12);
  });
}
