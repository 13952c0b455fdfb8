/**
 * @module
 * The jobs list's URL parameters, shared by the page (`/`) and the API (`/api/jobs`): `status` (one or several,
 * comma-separated), `agent`, `parent`, `q` (id prefix), `from`/`to` (creation time: ISO date or date-time, UTC
 * when no zone is given, or epoch milliseconds), `before`/`after` (the page cursor), `limit`.
 */
import { JOB_STATUSES, type JobBrowseQuery, type JobCursor, type JobRow, type JobStatus } from "../store/store.ts";
import { UiInputError } from "./ui-input-error.ts";

/** Rows per page unless `limit` says. */
export const PAGE_SIZE = 50;
/** The most rows one request may ask for. */
const MAX_LIMIT = 500;

/** The list's filters as the page shows them again (strings as typed). */
export interface ListFilters {
  status: JobStatus[];
  agent: string;
  parent: string;
  q: string;
  from: string;
  to: string;
}

/** A parsed list request. */
export interface ListRequest {
  filters: ListFilters;
  query: JobBrowseQuery & { limit: number };
}

/** Parses the parameters; a bad one is a {@link UiInputError} naming it. */
export function parseListRequest(parameters: URLSearchParams): ListRequest {
  const text = (name: string) => (parameters.get(name) ?? "").trim();
  const status = parameters.getAll("status").flatMap((value) => value.split(",")).map((value) => value.trim().toUpperCase()).filter(Boolean);
  for (const value of status) {
    if (!(JOB_STATUSES as readonly string[]).includes(value)) {
      throw new UiInputError({ message: `unknown status ${JSON.stringify(value)} (expected one of ${JOB_STATUSES.join(", ")})` });
    }
  }
  const filters: ListFilters = { status: [...new Set(status)] as JobStatus[], agent: text("agent"), parent: text("parent"), q: text("q"), from: text("from"), to: text("to") };
  const limit = text("limit") === "" ? PAGE_SIZE : Number(text("limit"));
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UiInputError({ message: `limit must be a whole number from 1 to ${MAX_LIMIT}` });
  const query: JobBrowseQuery & { limit: number } = { limit };
  if (filters.status.length) query.status = filters.status;
  if (filters.agent) query.role = filters.agent;
  if (filters.parent) query.parentId = filters.parent;
  if (filters.q) query.idPrefix = filters.q;
  if (filters.from) query.createdFrom = parseTime("from", filters.from);
  if (filters.to) query.createdTo = parseTime("to", filters.to);
  const before = text("before");
  const after = text("after");
  if (before && after) throw new UiInputError({ message: "give before or after, not both" });
  if (before) query.before = parseCursor("before", before);
  if (after) query.after = parseCursor("after", after);
  return { filters, query };
}

/** The cursor text of a row (`<createdAt>_<id>`), for `before`/`after`. */
export function cursorOf(row: Pick<JobRow, "createdAt" | "id">): string {
  return `${row.createdAt}_${row.id}`;
}

/** The list URL's parameters for these filters, plus extra ones (a cursor). */
export function listParameters(filters: ListFilters, extra: Record<string, string> = {}): URLSearchParams {
  const parameters = new URLSearchParams();
  if (filters.status.length) parameters.set("status", filters.status.join(","));
  for (const name of ["agent", "parent", "q", "from", "to"] as const) if (filters[name]) parameters.set(name, filters[name]);
  for (const [name, value] of Object.entries(extra)) parameters.set(name, value);
  return parameters;
}

function parseCursor(name: string, text: string): JobCursor {
  const match = /^(\d{1,15})_(.+)$/s.exec(text);
  if (!match) throw new UiInputError({ message: `${name} must be a page cursor as the list's links give it (<createdAt>_<id>)` });
  return { createdAt: Number(match[1]), id: match[2]! };
}

function parseTime(name: string, text: string): number {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  // A date or date-time without a zone is UTC, as the pages show times.
  const zoned = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(zoned) ? Date.parse(zoned) : Number.NaN;
  if (Number.isNaN(time)) throw new UiInputError({ message: `${name} must be a date (2026-05-01), a date and time (2026-05-01T14:30, UTC) or epoch milliseconds, got ${JSON.stringify(text)}` });
  return time;
}
