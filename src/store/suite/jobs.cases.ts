/**
 * @module
 * Conformance cases: jobs, variables, history and commits (the contract's first version), status transitions,
 * checked writes, group commit and closing.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { JobConflictError } from "../../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../../errors/no-such-job-error.ts";
import { STATUS_TRANSITIONS } from "../store-rules.ts";
import { JOB_STATUSES } from "../store.ts";
import type { JobRow, JobStatus, JsonValue, VariableRow } from "../store.ts";
import { insertSample, sampleJob, sampleRecord, type SuiteContext } from "./suite-context.ts";

/** Defines the job cases. */
export function jobCases({ test }: SuiteContext): void {
  test("insertJob then getJob round-trips every field", async (store) => {
    const parent = sampleJob();
    const job = sampleJob({
      role: "planner",
      status: "SUSPENDED",
      params: { user: { name: "Zoë 🌍", tags: ["a", "b"], nested: { n: 1.5, ok: true, none: null } } },
      metadata: { MODEL: "openai/gpt-5-mini", CHAT_STYLE: "MARKDOWN" },
      parentId: parent.id,
      createdAt: 1_700_000_000_123,
      updatedAt: 1_700_000_000_456,
      version: 3,
      turns: 2,
      pendingSeq: 1,
      historyLength: 2,
      exitStatus: '{"ok":true}',
      error: "none yet",
      usage: { inputTokens: 10, outputTokens: 20, cost: 0.0012 },
      state: { handlers: [], counters: { exceptions: 0 } },
    });
    await store.insertJob(parent, [], []);
    await store.insertJob(job, [{ name: "x", blob: "1", position: 0 }], [sampleRecord(0), sampleRecord(1)]);
    assert.deepEqual(await store.getJob(job.id), job);
    assert.deepEqual(await store.getJob(parent.id), parent);
  });

  test("getJob of an unknown id resolves to null", async (store) => {
    assert.equal(await store.getJob(randomUUID()), null);
  });

  test("getVariables and getHistory of an unknown job are empty", async (store) => {
    assert.deepEqual(await store.getVariables(randomUUID()), []);
    assert.deepEqual(await store.getHistory(randomUUID()), []);
  });

  test("getVariables returns variables in ascending position", async (store) => {
    const job = sampleJob();
    const variables: VariableRow[] = [
      { name: "b", blob: '"second"', position: 1 },
      { name: "c", blob: '"third"', position: 2 },
      { name: "a", blob: '"first"', position: 0 },
    ];
    await store.insertJob(job, variables, []);
    assert.deepEqual(await store.getVariables(job.id), [variables[2], variables[0], variables[1]]);
  });

  test("getHistory returns records in seq order, from fromSeq on", async (store) => {
    const job = sampleJob({ historyLength: 4 });
    const history = [0, 1, 2, 3].map((seq) => sampleRecord(seq, { seq, text: `line ${seq}`, list: [seq] }));
    await store.insertJob(job, [], history);
    assert.deepEqual(await store.getHistory(job.id), history);
    assert.deepEqual(await store.getHistory(job.id, { fromSeq: 2 }), history.slice(2));
    assert.deepEqual(await store.getHistory(job.id, { fromSeq: 9 }), []);
  });

  test("commit updates fields, increments version and sets updatedAt", async (store) => {
    const job = sampleJob();
    await store.insertJob(job, [], []);
    const before = Date.now();
    await store.commit({
      id: job.id,
      expectedVersion: 0,
      job: { status: "STARTED", turns: 1, pendingSeq: 0, usage: { inputTokens: 5 }, state: { a: [1] }, error: null },
      appendHistory: [sampleRecord(0)],
    });
    const after = await store.getJob(job.id);
    assert.ok(after !== null);
    assert.equal(after.updatedAt >= before && after.updatedAt <= Date.now(), true);
    assert.deepEqual(after, {
      ...job,
      status: "STARTED",
      turns: 1,
      pendingSeq: 0,
      usage: { inputTokens: 5 },
      state: { a: [1] },
      version: 1,
      historyLength: 1,
      updatedAt: after.updatedAt,
    });
    await store.commit({ id: job.id, expectedVersion: 1, job: { pendingSeq: null, exitStatus: "42", status: "DONE" } });
    const done = await store.getJob(job.id);
    assert.equal(done?.version, 2);
    assert.equal(done?.pendingSeq, null);
    assert.equal(done?.exitStatus, "42");
    assert.equal(done?.status, "DONE");
    assert.equal(done?.turns, 1, "fields not named in the commit are kept");
  });

  test("commit with a stale version fails with JobConflictError", async (store) => {
    const job = sampleJob();
    await store.insertJob(job, [], []);
    await store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } });
    await store.commit({ id: job.id, expectedVersion: 1, job: { turns: 2 } });
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 1, job: { turns: 99 } }), (error: unknown) => {
      assert.ok(error instanceof JobConflictError);
      assert.equal(error.jobId, job.id);
      assert.equal(error.expectedVersion, 1);
      assert.equal(error.actualVersion, 2);
      assert.equal(error.isRetryable, true);
      return true;
    });
    assert.equal((await store.getJob(job.id))?.turns, 2);
  });

  test("commit to an unknown job fails with NoSuchJobError", async (store) => {
    const id = randomUUID();
    await assert.rejects(store.commit({ id, expectedVersion: 0, job: { turns: 1 } }), (error: unknown) => {
      assert.ok(error instanceof NoSuchJobError);
      assert.equal(error.jobId, id);
      return true;
    });
  });

  test("commit puts, replaces and deletes variables", async (store) => {
    const job = sampleJob();
    await store.insertJob(job, [{ name: "a", blob: "1", position: 0 }, { name: "b", blob: "2", position: 1 }], []);
    await store.commit({
      id: job.id,
      expectedVersion: 0,
      putVariables: [{ name: "a", blob: "10", position: 0 }, { name: "c", blob: "3", position: 2 }],
      deleteVariables: ["b", "never-defined"],
    });
    assert.deepEqual(await store.getVariables(job.id), [
      { name: "a", blob: "10", position: 0 },
      { name: "c", blob: "3", position: 2 },
    ]);
    await store.commit({ id: job.id, expectedVersion: 1, deleteVariables: ["a"], putVariables: [{ name: "a", blob: "11", position: 3 }] });
    assert.deepEqual((await store.getVariables(job.id)).map((variable) => variable.blob), ["3", "11"], "a put wins over a delete");
  });

  test("commit appends history and sets historyLength", async (store) => {
    const job = sampleJob({ historyLength: 1 });
    await store.insertJob(job, [], [sampleRecord(0)]);
    await store.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(1), sampleRecord(2)] });
    await store.commit({ id: job.id, expectedVersion: 1, job: { historyLength: 4 }, appendHistory: [sampleRecord(3)] });
    assert.equal((await store.getJob(job.id))?.historyLength, 4);
    assert.deepEqual((await store.getHistory(job.id)).map((record) => record.seq), [0, 1, 2, 3]);
  });

  test("commit rejects history that does not continue the job's history", async (store) => {
    const job = sampleJob({ historyLength: 1 });
    await store.insertJob(job, [], [sampleRecord(0)]);
    const attempts = [[sampleRecord(2)], [sampleRecord(0)], [sampleRecord(1), sampleRecord(3)]];
    for (const appendHistory of attempts) {
      await assert.rejects(
        store.commit({ id: job.id, expectedVersion: 0, appendHistory, putVariables: [{ name: "x", blob: "1", position: 0 }] }),
        /seq/,
      );
    }
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, job: { historyLength: 5 } }), /historyLength/);
    await assert.rejects(store.insertJob(sampleJob({ historyLength: 1 }), [], [sampleRecord(1)]), /seq/);
    await assert.rejects(store.insertJob(sampleJob({ historyLength: 0 }), [], [sampleRecord(0)]), /historyLength/);
    assert.deepEqual(await store.getJob(job.id), job, "nothing of a rejected commit lands");
    assert.deepEqual(await store.getVariables(job.id), []);
  });

  test("a failing commit does not affect others committed in the same tick", async (store) => {
    const [first, stale, broken, midway, last] = [sampleJob(), sampleJob(), sampleJob(), sampleJob(), sampleJob()];
    for (const job of [first, stale, broken, midway, last]) await store.insertJob(job, [], []);
    // A bigint passes every up-front check and fails only when its record is encoded, after the job row and
    // the variables were written: the savepoint must undo them.
    const unwritable = { ...sampleRecord(0), data: { n: 1n } as unknown as JsonValue };
    const variable = { name: "v", blob: "1", position: 0 };
    const results = await Promise.allSettled([
      store.commit({ id: first.id, expectedVersion: 0, job: { turns: 1 }, putVariables: [variable] }),
      store.commit({ id: stale.id, expectedVersion: 7, job: { turns: 1 }, putVariables: [variable] }),
      store.commit({ id: randomUUID(), expectedVersion: 0, job: { turns: 1 } }),
      store.commit({ id: broken.id, expectedVersion: 0, putVariables: [variable], appendHistory: [sampleRecord(5)] }),
      store.commit({ id: midway.id, expectedVersion: 0, job: { turns: 5 }, putVariables: [variable], appendHistory: [unwritable] }),
      store.commit({ id: last.id, expectedVersion: 0, job: { turns: 1 }, appendHistory: [sampleRecord(0)] }),
    ]);
    const statuses = results.map((result) => result.status);
    assert.deepEqual(statuses, ["fulfilled", "rejected", "rejected", "rejected", "rejected", "fulfilled"]);
    assert.ok(results[1].status === "rejected" && results[1].reason instanceof JobConflictError);
    assert.ok(results[2].status === "rejected" && results[2].reason instanceof NoSuchJobError);
    assert.equal((await store.getJob(first.id))?.turns, 1);
    assert.equal((await store.getJob(last.id))?.historyLength, 1);
    for (const job of [stale, broken, midway]) {
      assert.deepEqual(await store.getJob(job.id), job);
      assert.deepEqual(await store.getVariables(job.id), []);
    }
    assert.deepEqual(await store.getVariables(first.id), [variable]);
  });

  test("200 concurrent commits to 100 jobs all land", async (store) => {
    const jobs = Array.from({ length: 100 }, () => sampleJob());
    await Promise.all(jobs.map((job) => store.insertJob(job, [], [])));
    const step = (job: JobRow, version: number) =>
      store.commit({
        id: job.id,
        expectedVersion: version,
        job: { turns: version + 1 },
        putVariables: [{ name: `v${version}`, blob: String(version), position: version }],
        appendHistory: [sampleRecord(version)],
      });
    // All 100 jobs step at once, twice: each job's second step names the version its first one created.
    await Promise.all(jobs.map(async (job) => (await step(job, 0), await step(job, 1))));
    for (const job of jobs) {
      const stored = await store.getJob(job.id);
      assert.equal(stored?.version, 2);
      assert.equal(stored?.turns, 2);
      assert.equal(stored?.historyLength, 2);
      assert.deepEqual((await store.getVariables(job.id)).map((variable) => variable.name), ["v0", "v1"]);
    }
  });

  test("listJobs filters by a single status and by several", async (store) => {
    const ready = sampleJob({ status: "READY", createdAt: 1 });
    const started = sampleJob({ status: "STARTED", createdAt: 2 });
    const done = sampleJob({ status: "DONE", createdAt: 3 });
    for (const job of [ready, started, done]) await store.insertJob(job, [], []);
    assert.deepEqual(await store.listJobs({ status: "STARTED" }), [started]);
    assert.deepEqual(await store.listJobs({ status: ["READY", "DONE"] }), [done, ready]);
    assert.deepEqual(await store.listJobs({ status: [] }), []);
    assert.deepEqual(await store.listJobs({ status: "FAILED" }), []);
    assert.deepEqual(await store.listJobs(), [done, started, ready]);
  });

  test("listJobs filters by role and parentId", async (store) => {
    const parent = sampleJob({ role: "planner", createdAt: 1 });
    const childA = sampleJob({ role: "coder", parentId: parent.id, createdAt: 2 });
    const childB = sampleJob({ role: "planner", parentId: parent.id, createdAt: 3 });
    const other = sampleJob({ role: "coder", createdAt: 4 });
    for (const job of [parent, childA, childB, other]) await store.insertJob(job, [], []);
    assert.deepEqual(await store.listJobs({ role: "coder" }), [other, childA]);
    assert.deepEqual(await store.listJobs({ parentId: parent.id }), [childB, childA]);
    assert.deepEqual(await store.listJobs({ parentId: parent.id, role: "coder", status: "READY" }), [childA]);
  });

  test("listJobs pages with limit and offset, newest first", async (store) => {
    const jobs = Array.from({ length: 7 }, (_, index) => sampleJob({ createdAt: 1_000 + index }));
    for (const job of [...jobs].reverse()) await store.insertJob(job, [], []);
    const newestFirst = [...jobs].reverse();
    assert.deepEqual(await store.listJobs({ limit: 3 }), newestFirst.slice(0, 3));
    assert.deepEqual(await store.listJobs({ limit: 3, offset: 3 }), newestFirst.slice(3, 6));
    assert.deepEqual(await store.listJobs({ limit: 3, offset: 6 }), newestFirst.slice(6));
    assert.deepEqual(await store.listJobs({ limit: 0 }), []);
    const many = Array.from({ length: 105 }, (_, index) => sampleJob({ createdAt: 5_000 + index }));
    await Promise.all(many.map((job) => store.insertJob(job, [], [])));
    assert.equal((await store.listJobs()).length, 100, "the default limit is 100");
  });

  test("insertJob of an existing id fails and changes nothing", async (store) => {
    const job = sampleJob({ turns: 1 });
    await store.insertJob(job, [{ name: "a", blob: "1", position: 0 }], []);
    await assert.rejects(store.insertJob({ ...job, turns: 9 }, [{ name: "b", blob: "2", position: 1 }], []), /exists/);
    assert.deepEqual(await store.getJob(job.id), job);
    assert.deepEqual((await store.getVariables(job.id)).map((variable) => variable.name), ["a"]);
  });

  test("an aborted signal rejects before any work", async (store) => {
    const job = sampleJob();
    const reason = new Error("stop");
    const signal = AbortSignal.abort(reason);
    await assert.rejects(store.insertJob(job, [], [], { signal }), (error) => error === reason);
    await assert.rejects(store.getJob(job.id, { signal }), (error) => error === reason);
    await assert.rejects(store.listJobs({}, { signal }), (error) => error === reason);
    assert.equal(await store.getJob(job.id), null);
    await store.insertJob(job, [], []);
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } }, { signal }), (error) => error === reason);
    assert.equal((await store.getJob(job.id))?.version, 0);
  });

  test("migrate is idempotent", async (store) => {
    await store.migrate();
    await store.migrate();
    const job = sampleJob();
    await store.insertJob(job, [], []);
    await store.migrate();
    assert.deepEqual(await store.getJob(job.id), job);
  });

  test("close finishes commits already issued", async (store) => {
    const job = sampleJob();
    await store.insertJob(job, [], []);
    const pending = store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } });
    await store.close();
    await pending;
  });

  test("calls after close fail", async (store) => {
    const job = sampleJob();
    await store.insertJob(job, [], []);
    await store.close();
    await store.close(); // closing twice is harmless
    await assert.rejects(store.getJob(job.id), /closed/);
    await assert.rejects(store.commit({ id: job.id, expectedVersion: 0 }), /closed/);
    await assert.rejects(store.insertJob(sampleJob(), [], []), /closed/);
    await assert.rejects(store.listJobs(), /closed/);
    await assert.rejects(store.migrate(), /closed/);
    const fence = { owner: "w", epoch: 1 };
    await assert.rejects(store.claimJob(job.id, "w", 1000), /closed/);
    await assert.rejects(store.claimRunnable("w", 1000, 1), /closed/);
    await assert.rejects(store.appendJournal(job.id, fence, 0, []), /closed/);
    await assert.rejects(store.settleFuture("k", { state: "resolved", value: 1, door: "application" }), /closed/);
    await assert.rejects(store.readEvents(), /closed/);
  });

  test("wakeAt and cell round-trip and a commit changes them", async (store) => {
    const job = await insertSample(store, { status: "SUSPENDED", wakeAt: 1_700_000_123_456, cell: 4 });
    assert.deepEqual(await store.getJob(job.id), job);
    await store.commit({ id: job.id, expectedVersion: 0, job: { status: "STARTED", wakeAt: null, cell: 5 } });
    const after = await store.getJob(job.id);
    assert.deepEqual([after?.status, after?.wakeAt, after?.cell], ["STARTED", null, 5]);
  });

  test("commit makes the status changes of the transition table and refuses the others", async (store) => {
    const pairs = JOB_STATUSES.flatMap((from) => JOB_STATUSES.map((to) => [from, to] as [JobStatus, JobStatus]));
    const jobs = await Promise.all(pairs.map(([from]) => insertSample(store, { status: from })));
    const results = await Promise.allSettled(pairs.map(([, to], index) => store.commit({ id: jobs[index]!.id, expectedVersion: 0, job: { status: to } })));
    pairs.forEach(([from, to], index) => {
      const allowed = from === to || STATUS_TRANSITIONS[from].includes(to);
      const result = results[index]!;
      if (allowed) assert.equal(result.status, "fulfilled", `${from} → ${to} is allowed: ${result.status === "rejected" ? result.reason : ""}`);
      else {
        assert.equal(result.status, "rejected", `${from} → ${to} must be refused`);
        assert.match(String(result.reason), new RegExp(`a ${from} job cannot become ${to}`));
      }
    });
    for (const [index, [from, to]] of pairs.entries()) {
      const allowed = from === to || STATUS_TRANSITIONS[from].includes(to);
      assert.equal((await store.getJob(jobs[index]!.id))?.status, allowed ? to : from);
    }
    // The ones a runner relies on.
    for (const [from, to] of [["SUSPENDED", "STARTED"], ["STARTED", "SUSPENDED"], ["FAILED", "STARTED"], ["DONE", "STARTED"], ["STARTED", "CANCELLED"]]) {
      assert.ok(STATUS_TRANSITIONS[from as JobStatus].includes(to as JobStatus), `${from} → ${to}`);
    }
    assert.deepEqual(STATUS_TRANSITIONS.CANCELLED, [], "nothing leaves CANCELLED");
  });

  test("a commit that keeps a final status may still append history", async (store) => {
    const job = await insertSample(store, { status: "CANCELLED" });
    await store.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(0)] });
    const after = await store.getJob(job.id);
    assert.deepEqual([after?.status, after?.historyLength], ["CANCELLED", 1]);
  });

  test("insertJob and commit refuse malformed values, naming the field", async (store) => {
    const job = await insertSample(store);
    const refuses = async (write: Promise<unknown>, pattern: RegExp) => assert.rejects(write, (error: unknown) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
    await refuses(store.insertJob({ ...sampleJob(), status: "LOST" as JobStatus }, [], []), /status must be one of READY, .*CANCELLED, got "LOST"/);
    await refuses(store.insertJob({ ...sampleJob(), wakeAt: "soon" as unknown as number }, [], []), /wakeAt must be an integer or null, got "soon"/);
    await refuses(store.insertJob({ ...sampleJob(), params: [] as unknown as JobRow["params"] }, [], []), /params must be a JSON object/);
    await refuses(store.insertJob(sampleJob(), [{ name: "x", blob: 1 as unknown as string, position: 0 }], []), /variables\[0\]\.blob must be a string/);
    await refuses(store.commit({ id: job.id, expectedVersion: 0, job: { turns: -1 } }), /turns must be a non-negative integer, got -1/);
    await refuses(store.commit({ id: job.id, expectedVersion: 0, job: { cell: 1.5 } }), /cell must be a non-negative integer/);
    await refuses(store.commit({ id: job.id, expectedVersion: 0, job: { version: 9 } as JobRow }), /the field version cannot be changed by a commit/);
    await refuses(store.commit({ id: job.id, expectedVersion: 0, job: { leaseOwner: "me" } as unknown as JobRow }), /the field leaseOwner cannot be changed/);
    await refuses(store.commit({ id: job.id, expectedVersion: -1 }), /expectedVersion must be a non-negative integer/);
    await refuses(store.commit({ id: job.id, expectedVersion: 0, releaseLease: true }), /releaseLease needs the fence/);
    await refuses(store.listJobs({ status: "LOST" as JobStatus }), /unknown status "LOST"/);
    assert.deepEqual(await store.getJob(job.id), job, "nothing of a refused write lands");
    assert.equal((await store.listJobs()).length, 1);
  });

  test("writes of one tick land in call order, whatever their kind", async (store) => {
    const job = sampleJob();
    const writes = [
      store.insertJob(job, [], []),
      store.commit({ id: job.id, expectedVersion: 0, job: { status: "STARTED" }, appendHistory: [sampleRecord(0)] }),
      store.commit({ id: job.id, expectedVersion: 1, job: { turns: 1 } }),
    ];
    await Promise.all(writes);
    const after = await store.getJob(job.id);
    assert.deepEqual([after?.status, after?.version, after?.turns, after?.historyLength], ["STARTED", 2, 1, 1]);
  });
}
