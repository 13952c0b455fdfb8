/**
 * @module
 * One page of the jobs list with its counts by status and what its suspended jobs wait for: the page is read one
 * row longer than shown, which says whether there is another page in the direction it was read.
 */
import type { FutureRow, JobRow, JobStatus, Store } from "../store/store.ts";
import { safe } from "./html/safe-field.ts";
import type { ListFilters, ListRequest } from "./job-list-query.ts";

/** A page of the list. */
export interface JobList {
  filters: ListFilters;
  /** Counts by status under every filter but the status. */
  counts: Record<JobStatus, number>;
  jobs: JobRow[];
  /** The waiting futures of each `SUSPENDED` job of the page, by job id. */
  waits: ReadonlyMap<string, FutureRow[]>;
  newer: boolean;
  older: boolean;
}

/** Reads the page and the counts. */
export async function loadJobList(store: Store, request: ListRequest): Promise<JobList> {
  const { query, filters } = request;
  const { status: _status, before: _before, after: _after, limit: _limit, ...countFilters } = query;
  const [rows, counts] = await Promise.all([store.browseJobs({ ...query, limit: query.limit + 1 }), store.countJobs(countFilters)]);
  const more = rows.length > query.limit;
  // Read towards newer jobs (after a cursor), the extra row is the newest: it belongs to the page before.
  const jobs = more ? (query.after ? rows.slice(1) : rows.slice(0, query.limit)) : rows;
  return {
    filters,
    counts,
    jobs,
    waits: await waitsOf(store, jobs),
    newer: query.after ? more : query.before !== undefined,
    older: query.after ? true : more,
  };
}

/** One read per suspended job of the page (a page holds at most a few hundred). */
async function waitsOf(store: Store, jobs: readonly JobRow[]): Promise<Map<string, FutureRow[]>> {
  const suspended = jobs.filter((job) => safe(() => job.status) === "SUSPENDED");
  const lists = await Promise.all(suspended.map((job) => store.listFutures(job.id, { state: "waiting" })));
  return new Map(suspended.map((job, index) => [job.id, lists[index]!]));
}
