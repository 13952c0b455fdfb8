/**
 * @module
 * The approvals inbox (`/approvals`): every pending approval request across jobs, oldest first — the tool,
 * its arguments, the job and agent that ask, how long it has waited — each decided in place with a note. The
 * page is live: a request another operator decides, or a new one, shows without a reload.
 */
import { html } from "hono/html";
import type { Inbox } from "../load-inbox.ts";
import { approvalForm } from "./approval-form.ts";
import type { Html } from "./html-types.ts";
import { banner } from "./layout.ts";
import { safe } from "./safe-field.ts";

/** What the inbox page shows. */
export interface ApprovalsPageData {
  inbox: Inbox;
  csrf: string;
  notice?: string;
  problem?: string;
  /** The moment relative times are counted from. @default Date.now() */
  now?: number;
}

/** The inbox page's `<main>` content. */
export function approvalsPage(data: ApprovalsPageData): Html {
  const { inbox, csrf } = data;
  const now = data.now ?? Date.now();
  const count = inbox.approvals.length;
  return html`<h1>Approvals</h1>
${banner("notice", data.notice)}${banner("problem", data.problem)}
${count === 0
    ? html`<p>No approval requests are waiting.</p>`
    : html`<p class="meta">${count.toLocaleString("en-US")}${inbox.more ? "+" : ""} request${count === 1 ? "" : "s"} waiting, oldest first.${inbox.more ? ` The oldest ${count} are shown; decide some to see the rest.` : ""}</p>
${inbox.approvals.map((approval) => {
      const job = inbox.jobs.get(approval.jobId);
      return approvalForm(approval, { csrf, now, inbox: { role: job ? safe(() => job.role) : undefined } });
    })}`}`;
}
