/**
 * @module
 * `/docs/api`: the JSON API in brief, on the UI itself (docs/ui.md has the full description).
 */
import { html } from "hono/html";
import type { Html } from "./html-types.ts";

/** The API page's `<main>` content. */
export function apiDocsPage(): Html {
  const rows: Array<[string, string]> = [
    ["GET /api/jobs", "Jobs, newest first: { counts, jobs, newer, older }. Parameters as on the jobs page: status, agent, parent, q (id prefix), from, to, before/after (page cursors), limit (≤ 500)."],
    ["GET /api/jobs/:id", "One job in full: { job, parent, children, history, variables, memory (null for a job bound to no shared memory), journal, waits, approvals, actions }."],
    ["GET /api/events", "Server-sent events (event: job, data: { id, jobId, kind, at }); ?job=<id> for one job's; resumes after Last-Event-ID."],
    ["GET /api/actions", "Which actions this STATEK offers: { pushMessage: true, approve: false, … }."],
    ["POST /api/jobs/:id/message", "{ message } — pushes a user message."],
    ["POST /api/jobs/:id/future/resolve", "{ key, value } — resolves a future the job waits for (value: any JSON)."],
    ["POST /api/jobs/:id/future/reject", "{ key, error } — rejects it with an error message."],
    ["POST /api/jobs/:id/approval", '{ requestId, decision: "approve" | "deny", note? }'],
    ["POST /api/jobs/:id/cancel", "{ reason? }"],
    ["POST /api/jobs/:id/retry", "{} — resumes a FAILED job."],
    ["POST /api/jobs/:id/fork", "{ turn, model?, message? } — a new job with the job's variables and history as of the end of that turn; the answer's jobId is the new job's."],
  ];
  return html`<h1>JSON API</h1>
<p>Send <code>Authorization: Bearer &lt;token&gt;</code> when the UI has tokens, and <code>Content-Type: application/json</code> with every POST. Each action is recorded in the job's history with the token's name (or <code>local</code>). Errors are <code>{ "error": "…" }</code> with status 400, 401, 403, 404, 409 or 501.</p>
<table><thead><tr><th scope="col">Request</th><th scope="col">What it does</th></tr></thead>
<tbody>${rows.map(([request, what]) => html`<tr><td><code>${request}</code></td><td>${what}</td></tr>`)}</tbody></table>`;
}
