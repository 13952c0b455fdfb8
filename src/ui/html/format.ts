/**
 * @module
 * What the pages add to the shared formatters (`format/`): times in `<time>` elements, relative to the page's
 * moment with the exact time on hover, spans of time, and long text collapsed into `<details>` ("show all").
 */
import { html } from "hono/html";
import { formatRelativeTime, formatSpan, formatTime } from "../../format/format-time.ts";
import type { Html } from "./html-types.ts";

/** Above this many characters or lines a text is collapsed behind "show all". */
export const COLLAPSE_CHARS = 1500;
export const COLLAPSE_LINES = 20;

/**
 * A time as `<time>`: relative to `now` (`3 min ago`, `in 5 s`), the exact UTC time in its `title` (shown on
 * hover) and `datetime`. Live pages are rendered again on every event and every 30 s while visible, so the
 * relative text stays current.
 */
export function time(epochMs: number | null | undefined, now: number = Date.now()): Html {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) return html`—`;
  const exact = formatTime(epochMs);
  return html`<time datetime="${new Date(epochMs).toISOString()}" title="${exact}">${formatRelativeTime(epochMs, now)}</time>`;
}

/** A span of time between two moments (`12 s`, `3 h 20 min`), with the start and end in its `title`. */
export function span(fromMs: number | null | undefined, toMs: number | null | undefined): Html {
  if (typeof fromMs !== "number" || typeof toMs !== "number" || !Number.isFinite(fromMs) || !Number.isFinite(toMs)) return html`—`;
  return html`<span class="span" title="${formatTime(fromMs)} → ${formatTime(toMs)}">${formatSpan(Math.max(0, toMs - fromMs))}</span>`;
}

/**
 * A block of preformatted text; a long one shows its start with a "show all" `<details>` holding the whole
 * text (no script needed). `body` renders the full text (plain, or highlighted code).
 */
export function block(text: string, options: { className?: string; body?: (text: string) => Html; label?: string } = {}): Html {
  const render = options.body ?? ((whole: string) => html`${whole}`);
  const lines = text.split("\n");
  const className = options.className ?? "output";
  if (text.length <= COLLAPSE_CHARS && lines.length <= COLLAPSE_LINES) return html`<pre class="${className}">${render(text)}</pre>`;
  const head = lines.slice(0, 8).join("\n").slice(0, 600);
  const size = `${lines.length.toLocaleString("en-US")} lines, ${text.length.toLocaleString("en-US")} characters`;
  return html`<div class="collapsed"><pre class="${className}">${render(head)}</pre>
<details><summary>Show all${options.label ? ` of ${options.label}` : ""} (${size})</summary><pre class="${className}">${render(text)}</pre></details></div>`;
}
