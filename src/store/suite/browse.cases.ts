/**
 * @module
 * Conformance cases: the operator's list — `browseJobs` (filters, id prefix, creation time, keyset pages in both
 * directions), `countJobs` by status, and `lastEventId`.
 */
import assert from "node:assert/strict";
import type { JobRow, Store } from "../store.ts";
import { insertSample, type SuiteContext } from "./suite-context.ts";

const T = 1_700_000_000_000;

/** Twelve jobs: ids `a00`…`a11`, created a second apart (two pairs share a millisecond), statuses and roles mixed. */
async function insertTwelve(store: Store): Promise<JobRow[]> {
  const jobs: JobRow[] = [];
  for (let index = 0; index < 12; index++) {
    const createdAt = T + 1000 * (index === 5 ? 4 : index === 9 ? 8 : index);
    jobs.push(await insertSample(store, {
      id: `a${String(index).padStart(2, "0")}`,
      createdAt,
      updatedAt: createdAt,
      status: index % 3 === 0 ? "DONE" : index % 3 === 1 ? "FAILED" : "READY",
      role: index < 6 ? "planner" : "writer",
      parentId: index >= 10 ? "a00" : null,
    }));
  }
  return jobs;
}

/** The list order: newest first, ties by id descending. */
const listOrder = (jobs: readonly JobRow[]) => [...jobs].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((job) => job.id);
const ids = (rows: readonly JobRow[]) => rows.map((row) => row.id);

/** Defines the browse cases. */
export function browseCases({ test }: SuiteContext): void {
  test("browseJobs pages newest first by keyset, forwards and back, ties broken by id", async (store) => {
    const jobs = await insertTwelve(store);
    const expected = listOrder(jobs);
    const pages: string[][] = [];
    let page = await store.browseJobs({ limit: 5 });
    while (page.length) {
      pages.push(ids(page));
      const last = page[page.length - 1]!;
      page = await store.browseJobs({ limit: 5, before: { createdAt: last.createdAt, id: last.id } });
    }
    assert.deepEqual(pages.flat(), expected);
    assert.deepEqual(pages.map((rows) => rows.length), [5, 5, 2]);
    // Back from the last page: the rows just newer than its first, still newest first.
    const third = expected[10]!;
    const thirdRow = jobs.find((job) => job.id === third)!;
    assert.deepEqual(ids(await store.browseJobs({ limit: 5, after: { createdAt: thirdRow.createdAt, id: third } })), expected.slice(5, 10));
    assert.deepEqual(ids(await store.browseJobs({ limit: 5, after: { createdAt: jobs[11]!.createdAt, id: jobs[11]!.id } })), []);
  });

  test("browseJobs filters by status, role, parent, id prefix and creation time, together", async (store) => {
    const jobs = await insertTwelve(store);
    const pick = (keep: (job: JobRow) => boolean) => listOrder(jobs.filter(keep));
    assert.deepEqual(ids(await store.browseJobs({ status: ["FAILED"] })), pick((job) => job.status === "FAILED"));
    assert.deepEqual(ids(await store.browseJobs({ status: ["FAILED", "DONE"], role: "writer" })), pick((job) => job.status !== "READY" && job.role === "writer"));
    assert.deepEqual(ids(await store.browseJobs({ parentId: "a00" })), ["a11", "a10"]);
    assert.deepEqual(ids(await store.browseJobs({ idPrefix: "a1" })), ["a11", "a10"]);
    assert.deepEqual(ids(await store.browseJobs({ idPrefix: "a0", role: "writer" })), pick((job) => job.id.startsWith("a0") && job.role === "writer"));
    assert.deepEqual(ids(await store.browseJobs({ idPrefix: "b" })), []);
    assert.deepEqual(ids(await store.browseJobs({ createdFrom: T + 3000, createdTo: T + 6000 })), pick((job) => job.createdAt >= T + 3000 && job.createdAt < T + 6000));
    assert.deepEqual(await store.browseJobs({ status: [] }), []);
  });

  test("browseJobs takes an id prefix literally (no pattern characters)", async (store) => {
    await insertSample(store, { id: "job_1" });
    await insertSample(store, { id: "jobX1" });
    await insertSample(store, { id: "job%" });
    assert.deepEqual(ids(await store.browseJobs({ idPrefix: "job_" })), ["job_1"]);
    assert.deepEqual(ids(await store.browseJobs({ idPrefix: "job%" })), ["job%"]);
  });

  test("browseJobs and countJobs check their queries", async (store) => {
    await assert.rejects(store.browseJobs({ limit: 0 }), /limit must be between 1 and 1000/);
    await assert.rejects(store.browseJobs({ limit: 1001 }), /limit must be between 1 and 1000/);
    await assert.rejects(store.browseJobs({ status: ["LOST" as never] }), /unknown status "LOST"/);
    await assert.rejects(store.browseJobs({ before: { createdAt: 1, id: "x" }, after: { createdAt: 1, id: "x" } }), /before or after, not both/);
    await assert.rejects(store.browseJobs({ before: { createdAt: "soon", id: "x" } as never }), /before must be a cursor/);
    await assert.rejects(store.countJobs({ createdFrom: 1.5 }), /createdFrom must be an integer/);
  });

  test("countJobs counts every status with the list's filters", async (store) => {
    const empty = await store.countJobs();
    assert.deepEqual(empty, { READY: 0, WARMING_UP: 0, STARTED: 0, SUSPENDED: 0, DONE: 0, FAILED: 0, CANCELLED: 0 });
    const jobs = await insertTwelve(store);
    const all = await store.countJobs();
    assert.equal(all.DONE, 4);
    assert.equal(all.FAILED, 4);
    assert.equal(all.READY, 4);
    assert.equal(all.SUSPENDED, 0);
    const writers = await store.countJobs({ role: "writer", createdFrom: T + 7000 });
    const expected = jobs.filter((job) => job.role === "writer" && job.createdAt >= T + 7000);
    assert.equal(writers.DONE + writers.FAILED + writers.READY, expected.length);
    assert.equal(writers.FAILED, expected.filter((job) => job.status === "FAILED").length);
    const prefixed = await store.countJobs({ idPrefix: "a1" });
    assert.deepEqual([prefixed.READY, prefixed.FAILED, prefixed.DONE], [1, 1, 0]);
    assert.equal((await store.countJobs({ parentId: "a00" })).FAILED, 1);
  });

  test("lastEventId is 0 for an empty outbox, then the newest event's id", async (store) => {
    assert.equal(await store.lastEventId(), 0);
    const job = await insertSample(store);
    await store.appendEvents([{ jobId: job.id, kind: "one", data: 1 }, { jobId: job.id, kind: "two", data: 2 }]);
    const events = await store.readEvents();
    assert.equal(await store.lastEventId(), events.at(-1)!.id);
  });
}
