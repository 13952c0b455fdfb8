/**
 * @module
 * The job page (`/jobs/:id`), in the order an operator reads it: the header (status, agent, parent and children,
 * times, usage and cost, exit value, error), the pending waits (timers with their due time, futures by key,
 * approval requests with their arguments), the actions the job's state allows (each a CSRF-protected form
 * POST), the workspace variables, the shared memory the job is bound to, the current cell's journal, and the
 * timeline.
 */
import { html } from "hono/html";
import type { FutureRow, JobRow } from "../../store/store.ts";
import type { JobDetails } from "../job-details.ts";
import type { UiActions } from "../ui-actions.ts";
import { CSRF_FIELD } from "../ui-csrf.ts";
import { formatJobUsage } from "../../format/format-job-usage.ts";
import { approvalForm } from "./approval-form.ts";
import { formatMemoryBinding } from "../../format/format-memory.ts";
import { block, span, time } from "./format.ts";
import type { Html } from "./html-types.ts";
import { duration } from "./jobs-page.ts";
import { safe } from "./safe-field.ts";
import { waitingFor } from "./wait-summary.ts";
import { TIMELINE_SECTIONS, timeline } from "./timeline.ts";
import { allowedActions } from "../../jobs/operate/allowed-actions.ts";
import { turnEnded } from "../../jobs/operate/fork-job.ts";

/** What the job page needs besides the job. */
export interface JobPageContext {
  actions: UiActions;
  csrf: string;
  notice?: string;
  problem?: string;
  /** Show every section of the timeline, not only the latest ({@link TIMELINE_SECTIONS}). */
  wholeTimeline?: boolean;
  /** The moment relative times are counted from. @default Date.now() */
  now?: number;
}

/** The job page's `<main>` content. */
export function jobPage(details: JobDetails, context: JobPageContext): Html {
  const { job } = details;
  const status = safe(() => job.status) ?? "unreadable";
  return html`<nav aria-label="Breadcrumb" class="meta"><a href="/">Jobs</a> › <span class="id">${job.id}</span></nav>
<h1>Job <span class="id">${job.id.slice(0, 8)}</span> <span class="status status-${status}">${status}</span></h1>
${context.notice ? html`<p class="notice" role="status">${context.notice}</p>` : ""}
${context.problem ? html`<p class="problem" role="alert">${context.problem}</p>` : ""}
${header(details, context.now ?? Date.now())}
<h2 id="waits">Pending waits</h2>
${waitsSection(details, context)}
<h2 id="actions">Actions</h2>
${actionsSection(details, context)}
<h2 id="variables">Variables</h2>
${details.variables.length === 0 ? html`<p>No variables.</p>` : html`<dl class="facts">${details.variables.map((variable) => html`<dt><code>${variable.name}</code></dt><dd>${variable.error ? html`<span class="error-text">cannot be shown: ${variable.error}</span>` : block(variable.preview)}</dd>`)}</dl>`}
${memorySection(details)}
<h2 id="journal">Journal of the current cell</h2>
${journalSection(details)}
<h2 id="timeline">Timeline</h2>
${timeline(job.id, details.history, context.wholeTimeline ? Infinity : TIMELINE_SECTIONS, (turn) => forkHere(job, turn, context.csrf))}`;
}

/** The job's shared memory: its binding and each entry it reads; nothing for a job bound to none. */
function memorySection(details: JobDetails): Html | string {
  const { memory } = details;
  if (memory === null) return "";
  const title = html`<h2 id="memory">Shared memory</h2>`;
  if ("error" in memory) return html`${title}<p class="error-text">cannot be shown: ${memory.error}</p>`;
  return html`${title}<p class="meta">${formatMemoryBinding(memory)}</p>
${memory.entries.length === 0 ? html`<p>No entries.</p>` : html`<dl class="facts">${memory.entries.map((entry) => html`<dt><code>${entry.key}</code> <span class="meta">${entry.category}</span></dt><dd>${block(JSON.stringify(entry.value, null, 2))}${entry.description ? html`<p>${entry.description}</p>` : ""}<p class="meta">from ${entry.context.length ? entry.context.join(", ") : "global"} · ${time(entry.updatedAt.getTime())}</p></dd>`)}</dl>`}`;
}

function header(details: JobDetails, now: number): Html {
  const { job } = details;
  const status = safe(() => job.status);
  const waiting = waitingFor(job, details.waits, now);
  const usage = safe(() => job.usage) ?? {};
  const error = safe(() => job.error);
  const exitStatus = details.exitValue;
  const role = safe(() => job.role) ?? "?";
  return html`<dl class="facts">
<dt>Id</dt><dd class="id">${job.id}</dd>
<dt>Agent</dt><dd><a href="/?agent=${encodeURIComponent(role)}">${role}</a></dd>
<dt>Parent</dt><dd>${details.parent ? html`<a class="id" href="/jobs/${encodeURIComponent(details.parent.id)}">${details.parent.id}</a> (${safe(() => details.parent!.status)})` : job.parentId ? html`<span class="id">${job.parentId}</span> (not in the store)` : "none"}</dd>
${forkedFrom(job)}
<dt>Children</dt><dd>${details.children.length === 0 ? "none" : html`<ul>${details.children.map((child) => html`<li><a class="id" href="/jobs/${encodeURIComponent(child.id)}">${child.id}</a> ${safe(() => child.role)} <span class="status status-${safe(() => child.status)}">${safe(() => child.status)}</span></li>`)}</ul><a href="/?parent=${encodeURIComponent(job.id)}">All children</a>`}</dd>
${String(waiting) ? html`<dt>Waiting for</dt><dd>${waiting}</dd>` : ""}
<dt>Created</dt><dd>${time(safe(() => job.createdAt), now)}</dd>
<dt>${status === "DONE" || status === "FAILED" || status === "CANCELLED" ? "Took" : "Running for"}</dt><dd>${duration(job, status, now)}</dd>
<dt>Updated</dt><dd>${time(safe(() => job.updatedAt), now)}</dd>
<dt>Turns</dt><dd>${safe(() => job.turns) ?? "?"} <span class="meta">(cell ${safe(() => job.cell) ?? "?"})</span></dd>
<dt>Usage</dt><dd>${formatJobUsage(usage)}</dd>
${safe(() => job.wakeAt) ? html`<dt>Wakes</dt><dd>${time(job.wakeAt, now)}</dd>` : ""}
${exitStatus ? html`<dt>Exit value</dt><dd>${block(exitStatus)}</dd>` : ""}
${error ? html`<dt>Error</dt><dd>${block(error, { className: "error" })}</dd>` : ""}
</dl>`;
}

/** A form POST to `/jobs/:id/<path>` with the CSRF token. */
function form(job: JobRow, path: string, csrf: string, label: string, fields: Html, options: { danger?: boolean; name?: string } = {}): Html {
  return html`<form class="action" method="post" action="/jobs/${encodeURIComponent(job.id)}/${path}"${options.name ? html` aria-label="${options.name}"` : ""}>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">${fields}<button${options.danger ? html` class="danger"` : ""}>${label}</button></form>`;
}

/** Where a fork comes from, linked to that turn of the original; nothing for a job that is no fork. */
function forkedFrom(job: JobRow): Html | string {
  const origin = safe(() => job.forkedFrom);
  if (origin === undefined) return "";
  return html`<dt>Forked from</dt><dd><a class="id" href="/jobs/${encodeURIComponent(origin.jobId)}">${origin.jobId}</a>, at the end of turn ${origin.turn}</dd>`;
}

/** Whether turn `turn` of the job can be forked now (a row that cannot be read offers no fork). */
function forkable(job: JobRow, turn: number): boolean {
  return safe(() => turnEnded(job, turn)) ?? false;
}

/** The "Fork from here" form at the end of a turn's section, for a turn that has ended. */
function forkHere(job: JobRow, turn: number, csrf: string): Html | string {
  if (!forkable(job, turn)) return "";
  return form(job, "fork", csrf, "Fork from here", html`<input type="hidden" name="turn" value="${turn}">`, { name: `Fork from the end of turn ${turn}` });
}

function actionsSection(details: JobDetails, context: JobPageContext): Html {
  const { job } = details;
  const { csrf } = context;
  const allowed = safe(() => allowedActions(job));
  const parts: Html[] = [];
  if (allowed?.pushMessage) {
    parts.push(html`<h3>Push a message</h3>`);
    parts.push(form(job, "message", csrf, "Push message", html`<label for="message-text">Message to the job</label><textarea id="message-text" name="message" rows="2" required></textarea>`, { name: "Push a message" }));
  }
  if (allowed?.cancel) {
    parts.push(html`<h3>Cancel</h3>`);
    parts.push(form(job, "cancel", csrf, "Cancel job", html`<label>Reason <input id="cancel-reason" name="reason" size="40"></label>`, { danger: true, name: "Cancel the job" }));
  }
  if (allowed?.retry) {
    parts.push(html`<h3>Retry</h3>`);
    parts.push(form(job, "retry", csrf, "Retry job", html``, { name: "Retry the job" }));
  }
  const turns = safe(() => job.turns);
  if (turns !== undefined && forkable(job, 0)) {
    const last = forkable(job, turns) ? turns : turns - 1;
    parts.push(html`<h3>Fork</h3><p class="meta">A new job with this job's variables and history as of the end of a turn; it starts by asking its model. This job is not changed.</p>`);
    parts.push(form(job, "fork", csrf, "Fork job", html`<label>Turn <input name="turn" type="number" min="0" max="${last}" value="${last}" required></label>
<label>Model <input name="model" size="24" placeholder="as this job"></label>
<label for="fork-message">Message to the fork</label><textarea id="fork-message" name="message" rows="2"></textarea>`, { name: "Fork the job" }));
  }
  if (parts.length === 0) return html`<p>None: a ${safe(() => job.status) ?? "unreadable"} job takes no messages and cannot be cancelled, retried or forked.</p>`;
  return html`${parts}`;
}

function waitsSection(details: JobDetails, context: JobPageContext): Html {
  const { waits, approvals } = details;
  const approvalKeys = new Set(approvals.map((approval) => approval.requestId));
  const parts: Html[] = [];
  const now = context.now ?? Date.now();
  if (approvals.length) parts.push(html`<h3>Approvals</h3>${approvals.map((approval) => approvalForm(approval, { csrf: context.csrf, now }))}`);
  const others = waits.filter((wait) => !approvalKeys.has(wait.key));
  if (others.length) parts.push(html`<ul class="waits">${others.map((wait) => html`<li>${waitItem(details.job, wait, context, now)}</li>`)}</ul>`);
  if (parts.length === 0) return html`<p>Not waiting for anything.</p>`;
  return html`${parts}`;
}

function waitItem(job: JobRow, wait: FutureRow, context: JobPageContext, now: number): Html {
  const { csrf } = context;
  const data = wait.data === null ? "" : JSON.stringify(wait.data, null, 2);
  const head = html`<strong>${wait.kind}</strong> <code>${wait.key}</code> <span class="meta">waiting ${span(wait.createdAt, now)}, since ${time(wait.createdAt, now)}${wait.wakeAt !== null ? html` · ${wait.kind === "timer" ? "due" : "times out"} ${time(wait.wakeAt, now)}` : ""}</span>${data ? block(data) : ""}`;
  switch (wait.kind) {
    case "message":
      return html`${head}<p class="meta">Answered by pushing a message (below).</p>`;
    case "timer":
      return head;
    case "approval":
      return head;
    case "child":
      return html`${head}<p class="meta">Ends when the child job ends.</p>`;
    case "external":
    case "checked": {
      const id = wait.key.replace(/[^\w-]/g, "_");
      const resolve = form(job, "future/resolve", csrf, "Resolve", html`<input type="hidden" name="key" value="${wait.key}">
<label for="value-${id}">Value</label><textarea id="value-${id}" name="value" rows="1"></textarea>
<label>As <select name="format"><option value="text">text</option><option value="json">JSON</option></select></label>`, { name: `Resolve ${wait.key}` });
      const reject = form(job, "future/reject", csrf, "Reject", html`<input type="hidden" name="key" value="${wait.key}">
<label for="error-${id}">Error message</label><input id="error-${id}" name="error" size="30" required>`, { danger: true, name: `Reject ${wait.key}` });
      return html`${head}${resolve}${reject}`;
    }
  }
}

function journalSection(details: JobDetails): Html {
  const journal = details.journal;
  if (!journal || journal.entries.length === 0) return html`<p>Empty: no cell is in progress.</p>`;
  return html`<details id="journal-entries"><summary>Cell ${journal.cell}: ${journal.entries.length} entr${journal.entries.length === 1 ? "y" : "ies"}</summary>
<ol start="0">${journal.entries.map((entry) => html`<li>${block(JSON.stringify(entry.data))}</li>`)}</ol></details>`;
}
