/**
 * @module
 * One pending approval request with its decision form (a note, then Approve or Deny: a CSRF-protected form
 * POST to `/jobs/:id/approval`), as the job page and the approvals inbox show it. The inbox's forms carry
 * `return=approvals`, so the answer leads back to the inbox.
 */
import { html } from "hono/html";
import type { PendingApproval } from "../ui-actions.ts";
import { CSRF_FIELD } from "../ui-csrf.ts";
import { block, span, time } from "./format.ts";
import type { Html } from "./html-types.ts";

/** Where the request is shown. */
export interface ApprovalFormOptions {
  csrf: string;
  now: number;
  /** Shown in the inbox: the request names its job and agent, and the answer returns to the inbox. */
  inbox?: { role: string | undefined };
}

/** A request's element id (`approval-<request id>`, with characters an id cannot hold replaced). */
export function approvalElementId(requestId: string): string {
  return `approval-${requestId.replace(/[^\w-]/g, "_")}`;
}

/** The request: its tool, summary, arguments, when it was asked, and the form that decides it. */
export function approvalForm(approval: PendingApproval, options: ApprovalFormOptions): Html {
  const { csrf, now, inbox } = options;
  const elementId = approvalElementId(approval.requestId);
  const fieldId = `note-${approval.requestId.replace(/[^\w-]/g, "_")}`;
  const requested = approval.requestedAt.getTime();
  const job = encodeURIComponent(approval.jobId);
  return html`<article class="record approval" id="${elementId}" aria-labelledby="${elementId}-h">
<p id="${elementId}-h"><code>${approval.tool}</code> asks for approval${inbox ? html` <span class="meta">· job <a class="id" href="/jobs/${job}">${approval.jobId.slice(0, 8)}</a>${inbox.role ? ` (${inbox.role})` : ""}</span>` : ""} <span class="meta">· requested ${time(requested, now)}, waiting ${span(requested, now)} · request <span class="id">${approval.requestId}</span></span></p>
${approval.summary ? html`<p>${approval.summary}</p>` : ""}
${block(JSON.stringify(approval.args, null, 2) ?? "undefined")}
<form class="action" method="post" action="/jobs/${job}/approval" aria-label="Decide on ${approval.tool}${inbox ? ` for job ${approval.jobId.slice(0, 8)}` : ""}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><input type="hidden" name="requestId" value="${approval.requestId}">${inbox ? html`<input type="hidden" name="return" value="approvals">` : ""}
<label for="${fieldId}">Note</label><input id="${fieldId}" name="note" size="40">
<button name="decision" value="approve">Approve</button><button name="decision" value="deny" class="danger">Deny</button></form>
</article>`;
}
