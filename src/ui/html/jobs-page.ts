/**
 * @module
 * The jobs page (`/`): counts by status (each a link that filters), the filter form (a plain GET form), the
 * table of one page of jobs — what each waits for, how long it has run or took, times relative with the exact
 * ones on hover — and links to the newer and older pages. On a narrow screen each row is a card.
 */
import { html } from "hono/html";
import { JOB_STATUSES, type FutureRow, type JobRow, type JobStatus } from "../../store/store.ts";
import { cursorOf, listParameters, type ListFilters } from "../job-list-query.ts";
import { span, time } from "./format.ts";
import type { Html } from "./html-types.ts";
import { safe } from "./safe-field.ts";
import { waitingFor } from "./wait-summary.ts";

export { safe };

/** What the jobs page shows. */
export interface JobsPageData {
  filters: ListFilters;
  counts: Record<JobStatus, number>;
  jobs: JobRow[];
  /** The waiting futures of the page's suspended jobs, by job id. */
  waits: ReadonlyMap<string, FutureRow[]>;
  /** Whether there are newer / older pages. */
  newer: boolean;
  older: boolean;
  problem?: string;
}

/** The statuses a job ends in: its duration is final. */
const FINAL: ReadonlySet<string> = new Set(["DONE", "FAILED", "CANCELLED"]);

/** The jobs page's `<main>` content. */
export function jobsPage(data: JobsPageData, now: number = Date.now()): Html {
  const { filters } = data;
  const total = JOB_STATUSES.reduce((sum, status) => sum + data.counts[status], 0);
  const statusLink = (status: JobStatus | undefined) => {
    const href = `/?${listParameters({ ...filters, status: status ? [status] : [] })}`;
    const current = status ? filters.status.length === 1 && filters.status[0] === status : filters.status.length === 0;
    const count = status ? data.counts[status] : total;
    return html`<li><a href="${href}"${current ? html` aria-current="page"` : ""}>${status ?? "All"} <strong>${count.toLocaleString("en-US")}</strong></a></li>`;
  };
  const first = data.jobs[0];
  const last = data.jobs[data.jobs.length - 1];
  return html`<h1>Jobs</h1>
${data.problem ? html`<p class="problem" role="alert">${data.problem}</p>` : ""}
<nav aria-label="Jobs by status"><ul class="counts">${statusLink(undefined)}${JOB_STATUSES.map((status) => statusLink(status))}</ul></nav>
<form class="filters" method="get" action="/" role="search" aria-label="Filter jobs">
  <label>Id starts with <input id="filter-q" name="q" value="${filters.q}" size="14" autocomplete="off"></label>
  <label>Status <select id="filter-status" name="status"><option value="">any</option>${JOB_STATUSES.map((status) => html`<option${filters.status.length === 1 && filters.status[0] === status ? html` selected` : ""}>${status}</option>`)}</select></label>
  <label>Agent <input id="filter-agent" name="agent" value="${filters.agent}" size="14"></label>
  <label>Parent id <input id="filter-parent" name="parent" value="${filters.parent}" size="14"></label>
  <label>Created from (UTC) <input id="filter-from" name="from" value="${filters.from}" placeholder="YYYY-MM-DD" size="16" aria-describedby="date-format"></label>
  <label>Created before (UTC) <input id="filter-to" name="to" value="${filters.to}" placeholder="YYYY-MM-DDTHH:MM" size="16" aria-describedby="date-format"></label>
  <button>Filter</button> <a href="/">Clear</a>
  <span id="date-format" class="meta hint">Dates: <code>2026-05-01</code> or <code>2026-05-01T14:30</code>, UTC</span>
</form>
${data.jobs.length === 0 ? html`<p>No jobs match.</p>` : html`<table class="jobs">
<caption class="meta">Newest first${filters.status.length ? ` · status ${filters.status.join(", ")}` : ""} · hover a time for the exact one</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Waiting for</th><th scope="col" class="num">Turns</th><th scope="col">Created</th><th scope="col">Duration</th><th scope="col">Updated</th><th scope="col">Parent</th><th scope="col">Error</th></tr></thead>
<tbody>${data.jobs.map((job) => jobRow(job, data.waits.get(job.id), now))}</tbody>
</table>`}
<nav class="pages" aria-label="Pages">
${data.newer && first ? html`<a rel="prev" href="/?${listParameters(filters, { after: cursorOf(first) })}">← Newer</a>` : ""}
${data.older && last ? html`<a rel="next" href="/?${listParameters(filters, { before: cursorOf(last) })}">Older →</a>` : ""}
</nav>`;
}

function jobRow(job: JobRow, waits: FutureRow[] | undefined, now: number): Html {
  const error = safe(() => job.error) ?? "";
  const status = safe(() => job.status);
  const waiting = waitingFor(job, waits, now);
  const parentId = safe(() => job.parentId);
  return html`<tr>
<td class="id" data-label="Id"><a href="/jobs/${encodeURIComponent(job.id)}">${job.id}</a></td>
<td data-label="Agent">${safe(() => job.role) ?? "?"}</td>
<td data-label="Status"><span class="status status-${status ?? "unknown"}">${status ?? "unreadable"}</span></td>
<td data-label="Waiting for" class="waiting${String(waiting) ? "" : " empty"}">${waiting}</td>
<td class="num" data-label="Turns">${safe(() => job.turns) ?? "?"}</td>
<td class="when" data-label="Created">${time(safe(() => job.createdAt), now)}</td>
<td class="when" data-label="${status !== undefined && FINAL.has(status) ? "Took" : "Running for"}">${duration(job, status, now)}</td>
<td class="when" data-label="Updated">${time(safe(() => job.updatedAt), now)}</td>
<td class="id${parentId ? "" : " empty"}" data-label="Parent">${parentId ? html`<a href="/jobs/${encodeURIComponent(parentId)}">${parentId.slice(0, 8)}</a>` : ""}</td>
<td class="error-text${error ? "" : " empty"}" data-label="Error">${error.length > 80 ? `${error.slice(0, 80)}…` : error}</td>
</tr>`;
}

/** How long a job took (created to its last change, once final) or has been going (created to now). */
export function duration(job: JobRow, status: string | undefined, now: number): Html {
  const createdAt = safe(() => job.createdAt);
  const end = status !== undefined && FINAL.has(status) ? safe(() => job.updatedAt) : now;
  const text = span(createdAt, end);
  return status !== undefined && FINAL.has(status) ? text : html`${text} <span class="meta">so far</span>`;
}
