/**
 * @module
 * The HTML pages: the jobs list (`/`), a job (`/jobs/:id`) and its action forms (`POST /jobs/:id/<action>`,
 * answered with a redirect to the job, which shows a fixed notice — or the page again with the problem), and
 * the approvals inbox (`/approvals`: its forms post to the job's approval action with `return=approvals`, and
 * the answer leads back to the inbox), and the agents (`/agents`, `POST /agents/:role/reset`).
 */
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { jobsPage } from "./html/jobs-page.ts";
import { jobPage } from "./html/job-page.ts";
import { agentsPage } from "./html/agents-page.ts";
import { approvalsPage } from "./html/approvals-page.ts";
import { loadInbox } from "./load-inbox.ts";
import type { Html } from "./html/html-types.ts";
import { page } from "./html/layout.ts";
import { ACTION_PATHS, NOTICES, actionInput } from "./action-input.ts";
import { loadJobDetails } from "./job-details.ts";
import { parseListRequest } from "./job-list-query.ts";
import { performAction } from "./perform-action.ts";
import type { UiEnv, UiParts } from "./ui-context.ts";
import { UiInputError } from "./ui-input-error.ts";
import { formatError } from "../tools/call-tool.ts";
import { loadJobList } from "./load-job-list.ts";

/** Adds the page routes. */
export function addPageRoutes(app: Hono<UiEnv>, parts: UiParts): void {
  app.get("/", async (context) => {
    const url = new URL(context.req.url);
    try {
      const list = await loadJobList(parts.store, parseListRequest(url.searchParams));
      return render(context, "Jobs", jobsPage(list), "/api/events");
    } catch (error) {
      if (!(error instanceof UiInputError)) throw error;
      const counts = await parts.store.countJobs();
      const filters = { status: [], agent: "", parent: "", q: "", from: "", to: "" };
      return render(context, "Jobs", jobsPage({ filters, counts, jobs: [], waits: new Map(), newer: false, older: false, problem: error.message }), undefined, 400);
    }
  });

  app.get("/jobs/:id", async (context) => {
    const notice = NOTICES[context.req.query("notice") ?? ""];
    const all = context.req.query("timeline") === "all";
    return showJob(context, parts, context.req.param("id"), { ...(notice === undefined ? {} : { notice }), ...(all ? { wholeTimeline: true } : {}) });
  });

  app.get("/approvals", async (context) => {
    const notice = NOTICES[context.req.query("notice") ?? ""];
    return showInbox(context, parts, notice === undefined ? {} : { notice });
  });

  app.get("/agents", async (context) => {
    const reset = context.req.query("reset");
    return showAgents(context, parts, reset === undefined ? {} : { notice: `The breaker of ${reset} was reset.` });
  });

  app.post("/agents/:role/reset", async (context) => {
    const role = context.req.param("role");
    try {
      await parts.actions.resetAgent(role);
      return context.redirect(`/agents?reset=${encodeURIComponent(role)}`, 303);
    } catch (error) {
      return showAgents(context, parts, { problem: `the reset failed: ${formatError(error)}` }, 500);
    }
  });

  for (const path of ACTION_PATHS) {
    app.post(`/jobs/:id/${path}`, async (context) => {
      const id = context.req.param("id");
      const fields = await context.req.parseBody();
      const toInbox = path === "approval" && fields["return"] === "approvals";
      try {
        const input = actionInput(path, fields, "form");
        const { jobId } = await performAction({ ...parts, by: context.get("who") }, id, input);
        return context.redirect(toInbox ? `/approvals?notice=${input.action}` : `/jobs/${encodeURIComponent(jobId)}?notice=${input.action}`, 303);
      } catch (error) {
        const problem = error instanceof UiInputError ? error.message : `the action failed: ${formatError(error)}`;
        const status = error instanceof UiInputError ? error.status : 500;
        return toInbox ? showInbox(context, parts, { problem }, status) : showJob(context, parts, id, { problem }, status);
      }
    });
  }
}

async function showJob(context: Context<UiEnv>, parts: UiParts, id: string, messages: { notice?: string; problem?: string; wholeTimeline?: boolean }, status = 200): Promise<Response> {
  const details = await loadJobDetails(parts.store, parts.actions, id);
  if (!details) return render(context, "No such job", notFound(id), undefined, 404);
  const body = jobPage(details, { actions: parts.actions, csrf: context.get("csrfToken"), ...messages });
  return render(context, `Job ${id.slice(0, 8)}`, body, `/api/events?job=${encodeURIComponent(id)}`, status);
}

async function showInbox(context: Context<UiEnv>, parts: UiParts, messages: { notice?: string; problem?: string }, status = 200): Promise<Response> {
  const inbox = await loadInbox(parts.store, parts.actions);
  return render(context, inbox.approvals.length ? `Approvals (${inbox.approvals.length})` : "Approvals", approvalsPage({ inbox, csrf: context.get("csrfToken"), ...messages }), "/api/events", status);
}

async function showAgents(context: Context<UiEnv>, parts: UiParts, messages: { notice?: string; problem?: string }, status = 200): Promise<Response> {
  const agents = await parts.actions.agents();
  return render(context, "Agents", agentsPage({ agents, csrf: context.get("csrfToken"), ...messages }), "/api/events", status);
}

function notFound(id: string): Html {
  return html`<h1>No such job</h1><p>There is no job <code>${id}</code> in this store. <a href="/">All jobs</a></p>`;
}

/** Renders a page in the shell. */
export function render(context: Context<UiEnv>, title: string, body: Html, live: string | undefined, status = 200): Response | Promise<Response> {
  const session = context.get("session");
  const html = page({ title, who: context.get("who"), body, ...(live ? { live } : {}), ...(session ? { signOut: { csrf: context.get("csrfToken") } } : {}) });
  return context.html(html, status as 200);
}
