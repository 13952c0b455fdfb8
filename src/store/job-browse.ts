/**
 * @module
 * The operator's job list (`Store.browseJobs`, `Store.countJobs`): checks a query and turns it into the
 * adapter's {@link JobPageQuery}. Written once here so every engine pages and filters the same way.
 */
import type { JobPageQuery } from "./store-adapter.ts";
import { checkCount, checkId } from "./store-checks.ts";
import { isJobStatus } from "./store-rules.ts";
import type { JobBrowseQuery, JobCountQuery, JobCursor } from "./store.ts";

/** The most rows one page may have. */
export const MAX_PAGE_ROWS = 1000;
/** Rows in a page unless the query says. */
export const DEFAULT_PAGE_ROWS = 50;
/**
 * The highest code point: every id that starts with a prefix sorts below `prefix + MAX_CHAR` (byte order of
 * UTF-8, as SQLite's BINARY collation and PostgreSQL's "C" collation compare), so the prefix is a key range.
 */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** Checks a browse query; the adapter's query, or `null` when it matches nothing (an empty status list). */
export function toJobPageQuery(query: JobBrowseQuery): JobPageQuery | null {
  if (typeof query !== "object" || query === null) throw new TypeError("browseJobs: query must be an object");
  const limit = query.limit ?? DEFAULT_PAGE_ROWS;
  checkCount("browseJobs", "limit", limit);
  if (limit < 1 || limit > MAX_PAGE_ROWS) throw new TypeError(`browseJobs: limit must be between 1 and ${MAX_PAGE_ROWS}, got ${limit}`);
  if (query.before !== undefined && query.after !== undefined) throw new TypeError("browseJobs: give before or after, not both");
  const page: JobPageQuery = { ...toFilters("browseJobs", query), limit };
  if (query.status !== undefined) {
    if (!Array.isArray(query.status)) throw new TypeError("browseJobs: status must be an array of statuses");
    for (const status of query.status) {
      if (!isJobStatus(status)) throw new TypeError(`browseJobs: unknown status ${JSON.stringify(status)}`);
    }
    if (query.status.length === 0) return null;
    page.statuses = [...new Set(query.status)];
  }
  if (query.before !== undefined) page.before = checkCursor("before", query.before);
  if (query.after !== undefined) page.after = checkCursor("after", query.after);
  return page;
}

/** Checks a count query and returns the adapter's filters. */
export function toCountQuery(query: JobCountQuery): Omit<JobPageQuery, "statuses" | "before" | "after" | "limit"> {
  if (typeof query !== "object" || query === null) throw new TypeError("countJobs: query must be an object");
  return toFilters("countJobs", query);
}

function toFilters(call: string, query: JobCountQuery): Omit<JobPageQuery, "statuses" | "before" | "after" | "limit"> {
  const filters: Omit<JobPageQuery, "statuses" | "before" | "after" | "limit"> = {};
  if (query.role !== undefined) {
    checkId(call, "role", query.role);
    filters.role = query.role;
  }
  if (query.parentId !== undefined) {
    checkId(call, "parentId", query.parentId);
    filters.parentId = query.parentId;
  }
  if (query.idPrefix !== undefined && query.idPrefix !== "") {
    if (typeof query.idPrefix !== "string") throw new TypeError(`${call}: idPrefix must be a string`);
    filters.idPrefix = { prefix: query.idPrefix, upper: query.idPrefix + MAX_CHAR };
  }
  for (const field of ["createdFrom", "createdTo"] as const) {
    const value = query[field];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value)) throw new TypeError(`${call}: ${field} must be an integer (epoch milliseconds), got ${String(value)}`);
    filters[field] = value;
  }
  return filters;
}

function checkCursor(field: string, cursor: JobCursor): JobCursor {
  if (typeof cursor !== "object" || cursor === null || !Number.isSafeInteger(cursor.createdAt) || typeof cursor.id !== "string") {
    throw new TypeError(`browseJobs: ${field} must be a cursor { createdAt, id } (the first or last job of a page)`);
  }
  return { createdAt: cursor.createdAt, id: cursor.id };
}
