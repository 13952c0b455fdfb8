/**
 * @module
 * What a job waits for, in a few words: the jobs list's "Waiting for" column and the job page's header. Each
 * waiting future is named by what settles it (an approval of a tool, a future's key, a timer's due time, a
 * message, a child job's end) with how long it has waited.
 */
import { html } from "hono/html";
import { isApprovalGuard } from "../../durable/approval-waits.ts";
import type { FutureRow, JobRow } from "../../store/store.ts";
import { span, time } from "./format.ts";
import type { Html } from "./html-types.ts";
import { safe } from "./safe-field.ts";

/** Waits named in the list before "and N more". */
const NAMED_WAITS = 2;

/** One waiting future in a few words, e.g. "approval of pay · 3 min". */
export function waitSummary(wait: FutureRow, now: number): Html {
  return html`${waitName(wait, now)} <span class="meta">· ${span(wait.createdAt, now)}</span>`;
}

/** What a job waits for: its waiting futures when suspended, a worker when ready; empty otherwise. */
export function waitingFor(job: JobRow, waits: readonly FutureRow[] | undefined, now: number): Html {
  const status = safe(() => job.status);
  if (status === "READY") {
    const wakeAt = safe(() => job.wakeAt);
    return typeof wakeAt === "number" && wakeAt > now ? html`its wake-up ${time(wakeAt, now)}` : html`a worker <span class="meta">· ${span(safe(() => job.updatedAt), now)}</span>`;
  }
  if (status !== "SUSPENDED") return html``;
  const shown = (waits ?? []).filter((wait) => !isApprovalGuard(wait));
  // Its waits are settled: the next worker to claim it resumes it.
  if (shown.length === 0) return html`a worker to resume it <span class="meta">· ${span(safe(() => job.updatedAt), now)}</span>`;
  const more = shown.length - NAMED_WAITS;
  return html`${shown.slice(0, NAMED_WAITS).map((wait, index) => html`${index ? html`<br>` : ""}${waitSummary(wait, now)}`)}${more > 0 ? html`<br><span class="meta">and ${more} more</span>` : ""}`;
}

function waitName(wait: FutureRow, now: number): Html {
  const data = typeof wait.data === "object" && wait.data !== null && !Array.isArray(wait.data) ? wait.data : {};
  switch (wait.kind) {
    case "approval":
      return html`approval of <code>${typeof data["tool"] === "string" ? data["tool"] : "?"}</code>`;
    case "timer":
      return html`timer, due ${time(wait.wakeAt, now)}`;
    case "message":
      return html`a message`;
    case "child":
      return html`child job <a class="id" href="/jobs/${encodeURIComponent(wait.key)}">${wait.key.slice(0, 8)}</a>${typeof data["role"] === "string" ? ` (${data["role"]})` : ""}`;
    case "external":
    case "checked":
      return html`${wait.kind === "checked" ? "check" : "future"} <code>${wait.key}</code>${wait.wakeAt !== null ? html`, times out ${time(wait.wakeAt, now)}` : ""}`;
  }
}
