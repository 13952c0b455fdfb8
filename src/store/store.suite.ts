/**
 * @module
 * The conformance suite every {@link Store} passes. An adapter's test file calls {@link runStoreSuite} once per
 * configuration, then adds the cases only its engine has. The file name is not `*.test.ts`, so the test
 * runner never runs it on its own.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, it } from "node:test";
import { JobConflictError } from "../errors/job-conflict-error.ts";
import { NoSuchJobError } from "../errors/no-such-job-error.ts";
import type { HistoryRow, JobRow, Store, VariableRow } from "./store.ts";

/** How to run {@link runStoreSuite} against one store configuration. */
export interface StoreSuiteOptions {
  /** Shown as the suite's `describe` name, e.g. `sqlite :memory:`. */
  name: string;
  /** A fresh, empty store for one case. The suite migrates and closes it. */
  create: () => Promise<Store>;
  /** Case names to skip, each with the reason. */
  skip?: Record<string, string>;
}

/** A job with sensible defaults, for tests. */
export function sampleJob(overrides: Partial<JobRow> = {}): JobRow {
  return {
    id: randomUUID(),
    role: "assistant",
    status: "READY",
    params: {},
    metadata: {},
    parentId: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    version: 0,
    turns: 0,
    pendingSeq: null,
    historyLength: 0,
    exitStatus: null,
    error: null,
    usage: {},
    state: {},
    wakeAt: null,
    cell: 0,
    ...overrides,
  };
}

/** A history record for tests. */
export function sampleRecord(seq: number, data: HistoryRow["data"] = { n: seq }): HistoryRow {
  return { seq, kind: "console", at: 1_700_000_000_000 + seq, data };
}

/** Defines the conformance cases for one store configuration. */
export function runStoreSuite({ name, create, skip = {} }: StoreSuiteOptions): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await create();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });
    const test = (caseName: string, body: () => Promise<void>) => it(caseName, { skip: skip[caseName] ?? false }, body);

    test("insertJob then getJob round-trips every field", async () => {
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

    test("getJob of an unknown id resolves to null", async () => {
      assert.equal(await store.getJob(randomUUID()), null);
    });

    test("getVariables and getHistory of an unknown job are empty", async () => {
      assert.deepEqual(await store.getVariables(randomUUID()), []);
      assert.deepEqual(await store.getHistory(randomUUID()), []);
    });

    test("getVariables returns variables in ascending position", async () => {
      const job = sampleJob();
      const variables: VariableRow[] = [
        { name: "b", blob: '"second"', position: 1 },
        { name: "c", blob: '"third"', position: 2 },
        { name: "a", blob: '"first"', position: 0 },
      ];
      await store.insertJob(job, variables, []);
      assert.deepEqual(await store.getVariables(job.id), [variables[2], variables[0], variables[1]]);
    });

    test("getHistory returns records in seq order, from fromSeq on", async () => {
      const job = sampleJob({ historyLength: 4 });
      const history = [0, 1, 2, 3].map((seq) => sampleRecord(seq, { seq, text: `line ${seq}`, list: [seq] }));
      await store.insertJob(job, [], history);
      assert.deepEqual(await store.getHistory(job.id), history);
      assert.deepEqual(await store.getHistory(job.id, { fromSeq: 2 }), history.slice(2));
      assert.deepEqual(await store.getHistory(job.id, { fromSeq: 9 }), []);
    });

    test("commit updates fields, increments version and sets updatedAt", async () => {
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

    test("commit with a stale version fails with JobConflictError", async () => {
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

    test("commit to an unknown job fails with NoSuchJobError", async () => {
      const id = randomUUID();
      await assert.rejects(store.commit({ id, expectedVersion: 0, job: { turns: 1 } }), (error: unknown) => {
        assert.ok(error instanceof NoSuchJobError);
        assert.equal(error.jobId, id);
        return true;
      });
    });

    test("commit puts, replaces and deletes variables", async () => {
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

    test("commit appends history and sets historyLength", async () => {
      const job = sampleJob({ historyLength: 1 });
      await store.insertJob(job, [], [sampleRecord(0)]);
      await store.commit({ id: job.id, expectedVersion: 0, appendHistory: [sampleRecord(1), sampleRecord(2)] });
      await store.commit({ id: job.id, expectedVersion: 1, job: { historyLength: 4 }, appendHistory: [sampleRecord(3)] });
      assert.equal((await store.getJob(job.id))?.historyLength, 4);
      assert.deepEqual((await store.getHistory(job.id)).map((record) => record.seq), [0, 1, 2, 3]);
    });

    test("commit rejects history that does not continue the job's history", async () => {
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

    test("a failing commit does not affect others committed in the same tick", async () => {
      const [first, stale, broken, midway, last] = [sampleJob(), sampleJob(), sampleJob(), sampleJob(), sampleJob()];
      for (const job of [first, stale, broken, midway, last]) await store.insertJob(job, [], []);
      // A null blob passes every up-front check and fails only when written, after the job row was updated.
      const unwritable = { name: "w", blob: null as unknown as string, position: 1 };
      const variable = { name: "v", blob: "1", position: 0 };
      const results = await Promise.allSettled([
        store.commit({ id: first.id, expectedVersion: 0, job: { turns: 1 }, putVariables: [variable] }),
        store.commit({ id: stale.id, expectedVersion: 7, job: { turns: 1 }, putVariables: [variable] }),
        store.commit({ id: randomUUID(), expectedVersion: 0, job: { turns: 1 } }),
        store.commit({ id: broken.id, expectedVersion: 0, putVariables: [variable], appendHistory: [sampleRecord(5)] }),
        store.commit({ id: midway.id, expectedVersion: 0, job: { turns: 5 }, putVariables: [variable, unwritable] }),
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

    test("200 concurrent commits to 100 jobs all land", async () => {
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

    test("listJobs filters by a single status and by several", async () => {
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

    test("listJobs filters by role and parentId", async () => {
      const parent = sampleJob({ role: "planner", createdAt: 1 });
      const childA = sampleJob({ role: "coder", parentId: parent.id, createdAt: 2 });
      const childB = sampleJob({ role: "planner", parentId: parent.id, createdAt: 3 });
      const other = sampleJob({ role: "coder", createdAt: 4 });
      for (const job of [parent, childA, childB, other]) await store.insertJob(job, [], []);
      assert.deepEqual(await store.listJobs({ role: "coder" }), [other, childA]);
      assert.deepEqual(await store.listJobs({ parentId: parent.id }), [childB, childA]);
      assert.deepEqual(await store.listJobs({ parentId: parent.id, role: "coder", status: "READY" }), [childA]);
    });

    test("listJobs pages with limit and offset, newest first", async () => {
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

    test("insertJob of an existing id fails and changes nothing", async () => {
      const job = sampleJob({ turns: 1 });
      await store.insertJob(job, [{ name: "a", blob: "1", position: 0 }], []);
      await assert.rejects(store.insertJob({ ...job, turns: 9 }, [{ name: "b", blob: "2", position: 1 }], []), /exists/);
      assert.deepEqual(await store.getJob(job.id), job);
      assert.deepEqual((await store.getVariables(job.id)).map((variable) => variable.name), ["a"]);
    });

    test("an aborted signal rejects before any work", async () => {
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

    test("migrate is idempotent", async () => {
      await store.migrate();
      await store.migrate();
      const job = sampleJob();
      await store.insertJob(job, [], []);
      await store.migrate();
      assert.deepEqual(await store.getJob(job.id), job);
    });

    test("close finishes commits already issued", async () => {
      const job = sampleJob();
      await store.insertJob(job, [], []);
      const pending = store.commit({ id: job.id, expectedVersion: 0, job: { turns: 1 } });
      await store.close();
      await pending;
    });

    test("calls after close fail", async () => {
      const job = sampleJob();
      await store.insertJob(job, [], []);
      await store.close();
      await store.close(); // closing twice is harmless
      await assert.rejects(store.getJob(job.id), /closed/);
      await assert.rejects(store.commit({ id: job.id, expectedVersion: 0 }), /closed/);
      await assert.rejects(store.insertJob(sampleJob(), [], []), /closed/);
      await assert.rejects(store.listJobs(), /closed/);
      await assert.rejects(store.migrate(), /closed/);
    });
  });
}
