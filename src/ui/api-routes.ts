/**
 * @module
 * The JSON API under `/api`, mirroring the pages for scripts: `GET /api/jobs` (the list, same parameters as `/`),
 * `GET /api/jobs/:id` (a job in full), `GET /api/events` (server-sent events), and `POST /api/jobs/:id/<action>`
 * with a JSON body. Errors are `{ "error": "…" }` with the status that says why. docs/ui.md documents it.
 */
import type { Hono } from "hono";
import { ACTION_PATHS, actionInput } from "./action-input.ts";
import { actionsJson, detailsJson, futureJson, jobJson } from "./api-json.ts";
import { loadJobDetails } from "./job-details.ts";
import { cursorOf, parseListRequest } from "./job-list-query.ts";
import { serveEvents } from "./live-route.ts";
import { loadJobList } from "./load-job-list.ts";
import { performAction } from "./perform-action.ts";
import type { UiEnv, UiParts } from "./ui-context.ts";
import { UiInputError } from "./ui-input-error.ts";

/** Adds the API routes. */
export function addApiRoutes(app: Hono<UiEnv>, parts: UiParts): void {
  app.get("/api/jobs", async (context) => {
    const list = await loadJobList(parts.store, parseListRequest(new URL(context.req.url).searchParams));
    const first = list.jobs[0];
    const last = list.jobs[list.jobs.length - 1];
    return context.json({
      counts: list.counts,
      jobs: list.jobs.map((job) => ({ ...jobJson(job), ...(list.waits.has(job.id) ? { waits: list.waits.get(job.id)!.map(futureJson) } : {}) })),
      newer: list.newer && first ? cursorOf(first) : null,
      older: list.older && last ? cursorOf(last) : null,
    });
  });

  app.get("/api/jobs/:id", async (context) => {
    const details = await loadJobDetails(parts.store, parts.actions, context.req.param("id"));
    if (!details) throw new UiInputError({ message: `no job ${context.req.param("id")}`, status: 404 });
    return context.json(detailsJson(details, parts.actions));
  });

  app.get("/api/actions", (context) => context.json(actionsJson(parts.actions)));

  app.get("/api/events", (context) => serveEvents(context, parts.store, parts.liveStreams));

  for (const path of ACTION_PATHS) {
    app.post(`/api/jobs/:id/${path}`, async (context) => {
      let body: unknown;
      try {
        body = await context.req.json();
      } catch {
        throw new UiInputError({ message: "the body must be a JSON object" });
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new UiInputError({ message: "the body must be a JSON object" });
      const fields: Record<string, unknown> = { ...body };
      const { done, jobId } = await performAction({ ...parts, by: context.get("who"), via: "JSON API" }, context.req.param("id"), actionInput(path, fields, "json"));
      return context.json({ ok: true, done, jobId });
    });
  }
}
