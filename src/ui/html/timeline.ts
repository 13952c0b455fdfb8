/**
 * @module
 * A job's history as the job page shows it — the shared timeline model (`format/timeline.ts`) as HTML, in the
 * order of `statek show`: one section per model turn (its
 * usage, reasoning, code highlighted, the tool calls it asked for), then what running it did (tool calls with
 * arguments, results, errors and durations, console output, variables written), with the submission, warmup,
 * messages, status changes, error handlers and operator actions between them. A record that cannot be read is
 * shown as such, never skipped; long texts are collapsed behind "show all".
 */
import { html } from "hono/html";
import type { HistoryRecord, TypeCheckRecord } from "../../jobs/history/history.ts";
import type { HistoryRow } from "../../store/store.ts";
import { formatError } from "../../tools/call-tool.ts";
import { formatDuration } from "../../format/format-duration.ts";
import { formatUsage } from "../../format/format-usage.ts";
import { buildTimeline, postProcessVerdict, repeatedToolError, unusualFinish, variableChanges, type TimelineItem } from "../../format/timeline.ts";
import { block, time } from "./format.ts";
import { highlight } from "./highlight.ts";
import type { Html } from "./html-types.ts";

/** Sections the job page shows unless asked for all: a long job's page stays fast and short. */
export const TIMELINE_SECTIONS = 60;

/** What a turn's section may end with: the job page's "Fork from here" form for turns that can be forked. */
export type TurnFooter = (turn: number) => Html | string;

/**
 * The timeline's HTML: the shared timeline model's last `limit` sections, with a link to all of them when some are
 * left out; each model turn's section ends with `footer(turn)`, when given.
 */
export function timeline(jobId: string, history: readonly HistoryRow[], limit = Infinity, footer?: TurnFooter): Html {
  const sections = buildTimeline(jobId, history);
  if (sections.length === 0) return html`<p>No history yet.</p>`;
  const hidden = Math.max(0, sections.length - limit);
  const more = hidden === 0 ? "" : html`<p class="meta">The ${hidden} earlier sections are not shown. <a href="/jobs/${encodeURIComponent(jobId)}?timeline=all#timeline">Show the whole timeline (${sections.length} sections)</a></p>`;
  return html`${more}${sections.slice(hidden).map((section) => {
    const title = section.opener ? sectionTitle(section.opener.record) : html`Start`;
    const items = section.opener ? [section.opener, ...section.items] : section.items;
    const opener = section.opener?.record;
    const end = footer && opener?.kind === "model-response" ? footer(opener.data.turn) : "";
    return html`<section class="turn" id="${section.id}" aria-labelledby="${section.id}-h"><h3 id="${section.id}-h">${title}</h3>${items.map((item, index) => {
      const tool = repeatedToolError(items, index);
      return tool === undefined ? itemBody(item) : html`<p class="record meta">The cell stopped on the error of <code>${tool}</code> shown above.</p>`;
    })}${end}</section>`;
  })}`;
}

function itemBody(item: TimelineItem): Html {
  switch (item.kind) {
    case "unknown-kind":
      return html`<div class="record"><span class="meta">${item.recordKind} (a kind this version does not know)</span>${block(JSON.stringify(item.data, null, 2))}</div>`;
    case "unreadable":
      return html`<p class="problem">history[${item.seq}] ${item.recordKind} cannot be shown: ${item.error}</p>`;
    case "record":
      try {
        return recordBody(item.record);
      } catch (error) {
        return html`<p class="problem">history[${item.seq}] ${item.record.kind} cannot be shown: ${formatError(error)}</p>`;
      }
  }
}

/** The title of a section, from the record that opened it. */
function sectionTitle(record: HistoryRecord): Html {
  const at = time(record.at);
  switch (record.kind) {
    case "submitted":
      return html`Submitted ${at}`;
    case "model-response": {
      const data = record.data;
      const unusual = unusualFinish(data);
      return html`Turn ${data.turn} · ${data.model} <span class="meta">· ${formatUsage(data.usage, data.cost)}${unusual ? ` · finish: ${unusual}` : ""} · ${at}</span>`;
    }
    case "warmup":
      return html`Warmup block ${record.data.block + 1}${record.data.hidden ? " (hidden from the model)" : ""} <span class="meta">${at}</span>`;
    case "user-message":
      return html`User message <span class="meta">${at}</span>`;
    case "status":
      return html`Status <span class="status status-${record.data.status}">${record.data.status}</span> <span class="meta">${at}</span>`;
    case "operator-action":
      return html`Operator: ${record.data.action} by ${record.data.by} <span class="meta">via ${record.data.via} · ${at}</span>`;
    default:
      return html`${record.kind} <span class="meta">${at}</span>`;
  }
}

function recordBody(record: HistoryRecord): Html {
  switch (record.kind) {
    case "submitted": {
      const vars = record.data.vars ?? [];
      const params = record.data.params ?? {};
      return html`${vars.length ? html`<p>Variables: ${vars.map((entry) => `${entry.name}: ${entry.type}`).join(", ")}</p>` : ""}
${Object.keys(params).length ? html`<p class="meta">Parameters</p>${block(JSON.stringify(params, null, 2))}` : ""}`;
    }
    case "user-message":
      return block(record.data.text);
    case "model-response": {
      const data = record.data;
      const body = data.code ?? data.text;
      return html`${(data.reasoning ?? []).filter((part) => part.text.trim()).map((part) => html`<details class="record"><summary>Reasoning</summary>${block(part.text.trim())}</details>`)}
${body.trim() ? (data.code !== null ? block(body, { className: "code", body: highlight, label: "the code" }) : block(body)) : data.toolCalls.length ? "" : html`<p class="meta">(empty reply)</p>`}
${data.toolCalls.map((call) => html`<div class="record"><span class="meta">asks to call</span> <code>${call.name}</code>${block(JSON.stringify(call.args, null, 2))}</div>`)}`;
    }
    case "model-attempt": {
      const data = record.data;
      return html`<div class="record"><p class="error-text">Model attempt ${data.attempt} failed after ${formatDuration(data.durationMs)}${data.usage ? ` (${formatUsage(data.usage, data.cost)})` : ""}${data.retried ? ", retried" : ""}</p>${block(data.error, { className: "error" })}${data.text ? html`<p class="meta">partial text</p>${block(data.text)}` : ""}</div>`;
    }
    case "console": {
      const stream = record.data.stream;
      return html`<div class="record"><span class="meta">console${stream === "out" ? "" : ` (${stream})`}</span>${block(record.data.text, { className: stream === "error" ? "error" : "output" })}</div>`;
    }
    case "tool-call": {
      const call = record.data;
      return html`<div class="record"><p><span class="meta">${call.origin === "formal" ? "formal tool call" : "tool call"}</span> <code>${call.name}</code> <span class="meta">· ${formatDuration(call.durationMs)}</span></p>
<p class="meta">arguments</p>${block(call.args)}
${call.error !== undefined ? html`<p class="meta">error</p>${block(call.error, { className: "error" })}` : call.result !== undefined ? html`<p class="meta">result</p>${block(call.result)}` : ""}</div>`;
    }
    case "variables":
      return html`<p class="meta">variables: ${variableChanges(record.data).join(" ")}</p>`;
    case "warmup":
      return block(record.data.code, { className: "code", body: highlight, label: "the code" });
    case "dialog":
      return html`<div class="record"><span class="meta">to the user</span>${block(record.data.body)}${record.data.media ? html`<p class="meta">media: ${record.data.media}</p>` : ""}${record.data.error ? html`<p class="error-text">not delivered: ${record.data.error}</p>` : ""}</div>`;
    case "post-processed": {
      const data = record.data;
      const verdict = postProcessVerdict(data);
      const text = data.veto ?? data.note;
      return html`<div class="record"><p class="meta">${data.processor} ${verdict} turn ${data.turn}${data.usage ? ` · ${formatUsage(data.usage, data.cost)}` : ""}</p>${text ? block(text) : ""}</div>`;
    }
    case "status": {
      const data = record.data;
      return html`${data.exitStatus !== undefined ? html`<details><summary>Exit value as stored</summary>${block(data.exitStatus)}</details>` : ""}${data.reason !== undefined ? block(data.reason, { className: data.status === "FAILED" ? "error" : "output" }) : ""}`;
    }
    case "error-handler": {
      const data = record.data;
      return html`<div class="record"><p>Error handler <code>${data.name}</code>: ${data.outcome} <span class="meta">· ${formatDuration(data.durationMs)}</span></p>${data.error ? block(data.error, { className: "error" }) : ""}</div>`;
    }
    case "operator-action":
      return html`${record.data.target ? html`<p class="meta">on ${record.data.target}</p>` : ""}${record.data.note ? block(record.data.note) : ""}`;
    case "approval":
      return html`<p><strong>${record.data.approved ? "Approved" : "Denied"}</strong> by ${record.data.by}: <code>${record.data.tool}</code> <span class="meta">${time(record.data.decidedAt)}</span></p>${record.data.args ? block(record.data.args) : ""}${record.data.note ? block(record.data.note) : ""}`;
    case "type-check":
      return typeCheckBody(record.data);
    case "child-ended":
      return html`<p>Child job <a href="/jobs/${encodeURIComponent(record.data.childId)}" class="id">${record.data.childId.slice(0, 8)}</a> (${record.data.role}) ended <span class="status status-${record.data.status}">${record.data.status}</span></p>${record.data.result ? block(record.data.result) : ""}${record.data.reason ? block(record.data.reason) : ""}`;
    case "difficulty":
      return html`<p class="meta">difficulty ${record.data.from ? `${record.data.from} → ` : ""}${record.data.level}</p>`;
    case "reminder":
      return html`<div class="record"><span class="meta">reminder</span>${block(record.data.text)}</div>`;
  }
}

/** A type check that found something: what it did with the cell, and the errors by line (the console record has the text the model read). */
function typeCheckBody(data: TypeCheckRecord): Html {
  const what = data.outcome === "refused" ? "refused the cell (it did not run)" : data.outcome === "warned" ? "found type errors; the cell ran" : "could not check the cell; it ran unchecked";
  const part = data.part === "cell" ? "" : ` (${data.part})`;
  const count = data.errors.length + (data.more ?? 0);
  const errors = data.errors.map((error) => `line ${error.line}:${error.column} TS${error.code}: ${error.message}`).join("\n");
  return html`<div class="record"><p class="${data.outcome === "refused" ? "error-text" : "meta"}">Type check${part} ${what}${count ? ` · ${count} error${count === 1 ? "" : "s"}` : ""} <span class="meta">· ${formatDuration(data.durationMs)}</span></p>${errors ? block(data.more ? `${errors}\n… and ${data.more} more` : errors, { className: "error" }) : ""}${data.reason ? block(data.reason) : ""}</div>`;
}
