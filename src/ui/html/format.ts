/**
 * @module
 * Small formatters the pages share: times (UTC, as the CLI prints them), durations, token usage and cost, and
 * long text collapsed into `<details>` ("show all").
 */
import { html } from "hono/html";
import type { Html } from "./html-types.ts";

/** Above this many characters or lines a text is collapsed behind "show all". */
export const COLLAPSE_CHARS = 1500;
export const COLLAPSE_LINES = 20;

/** `2026-05-01 12:00:03 UTC`, in a `<time>` element. */
export function time(epochMs: number | null | undefined): Html {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) return html`—`;
  const date = new Date(epochMs);
  return html`<time datetime="${date.toISOString()}">${date.toISOString().replace("T", " ").slice(0, 19)} UTC</time>`;
}

/** `1.5 s`, `320 ms`. */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `$0.0012`, or "no price". */
export function cost(usd: unknown): string {
  if (typeof usd !== "number") return "no price";
  return usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`;
}

/** `1,200 in (300 cached) · 40 out · $0.0012` from a usage record (unknown counts say so). */
export function usage(record: { inputTokens?: unknown; cachedInputTokens?: unknown; outputTokens?: unknown; cost?: unknown }, usd?: unknown): string {
  const count = (value: unknown) => (typeof value === "number" ? value.toLocaleString("en-US") : "?");
  const cached = typeof record.cachedInputTokens === "number" && record.cachedInputTokens > 0 ? ` (${count(record.cachedInputTokens)} cached)` : "";
  return `${count(record.inputTokens)} in${cached} · ${count(record.outputTokens)} out · ${cost(usd ?? record.cost)}`;
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
