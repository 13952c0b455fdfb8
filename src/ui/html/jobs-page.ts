/**
 * @module
 * The jobs page (`/`): counts by status (each a link that filters), the filter form (a plain GET form), the
 * table of one page of jobs, and links to the newer and older pages.
 */
import { html } from "hono/html";
import { JOB_STATUSES, type JobRow, type JobStatus } from "../../store/store.ts";
import { cursorOf, listParameters, type ListFilters } from "../job-list-query.ts";
import { time } from "./format.ts";
import type { Html } from "./html-types.ts";

/** What the jobs page shows. */
export interface JobsPageData {
  filters: ListFilters;
  counts: Record<JobStatus, number>;
  jobs: JobRow[];
  /** Whether there are newer / older pages. */
  newer: boolean;
  older: boolean;
  problem?: string;
}

/** The jobs page's `<main>` content. */
export function jobsPage(data: JobsPageData): Html {
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
  <label>Created from (UTC) <input id="filter-from" name="from" value="${filters.from}" placeholder="2026-05-01" size="16"></label>
  <label>Created before (UTC) <input id="filter-to" name="to" value="${filters.to}" placeholder="2026-05-02T12:00" size="16"></label>
  <button>Filter</button> <a href="/">Clear</a>
</form>
${data.jobs.length === 0 ? html`<p>No jobs match.</p>` : html`<table>
<caption class="meta">Newest first${filters.status.length ? ` · status ${filters.status.join(", ")}` : ""}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Turns</th><th scope="col">Created</th><th scope="col">Updated</th><th scope="col">Parent</th><th scope="col">Error</th></tr></thead>
<tbody>${data.jobs.map(jobRow)}</tbody>
</table>`}
<nav class="pages" aria-label="Pages">
${data.newer && first ? html`<a rel="prev" href="/?${listParameters(filters, { after: cursorOf(first) })}">← Newer</a>` : ""}
${data.older && last ? html`<a rel="next" href="/?${listParameters(filters, { before: cursorOf(last) })}">Older →</a>` : ""}
</nav>`;
}

function jobRow(job: JobRow): Html {
  const error = safe(() => job.error) ?? "";
  return html`<tr>
<td class="id"><a href="/jobs/${encodeURIComponent(job.id)}">${job.id}</a></td>
<td>${safe(() => job.role) ?? "?"}</td>
<td><span class="status status-${safe(() => job.status) ?? "unknown"}">${safe(() => job.status) ?? "unreadable"}</span></td>
<td class="num">${safe(() => job.turns) ?? "?"}</td>
<td>${time(safe(() => job.createdAt))}</td>
<td>${time(safe(() => job.updatedAt))}</td>
<td class="id">${safe(() => job.parentId) ? html`<a href="/jobs/${encodeURIComponent(job.parentId!)}">${job.parentId!.slice(0, 8)}</a>` : ""}</td>
<td class="error-text">${error.length > 80 ? `${error.slice(0, 80)}…` : error}</td>
</tr>`;
}

/** A field of a possibly damaged row (its getter throws `CorruptRecordError`): `undefined` then. */
export function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
