/**
 * @module
 * What the pages add to the shared formatters (`format/`): times in `<time>` elements, and long text collapsed
 * into `<details>` ("show all").
 */
import { html } from "hono/html";
import { formatTime } from "../../format/format-time.ts";
import type { Html } from "./html-types.ts";

/** Above this many characters or lines a text is collapsed behind "show all". */
export const COLLAPSE_CHARS = 1500;
export const COLLAPSE_LINES = 20;

/** A time as `formatTime` writes it, in a `<time>` element. */
export function time(epochMs: number | null | undefined): Html {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) return html`—`;
  return html`<time datetime="${new Date(epochMs).toISOString()}">${formatTime(epochMs)}</time>`;
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
