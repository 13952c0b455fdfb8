/**
 * @module
 * The page shell every view shares: a skip link, the site header with who is signed in and the live status
 * (an ARIA live region), then the view's `<main>`. `live` names the event stream that keeps the page current.
 */
import { html } from "hono/html";
import type { Html } from "./html-types.ts";

/** What a page puts into the shell. */
export interface PageParts {
  title: string;
  /** Who is asking (a token's name or `local`). */
  who: string;
  /** The event stream URL that keeps the page current; absent for pages that do not change. */
  live?: string;
  /** Whether a sign-out button is shown (token sessions). */
  signOut?: { csrf: string };
  body: Html;
}

/** A whole HTML document. */
export function page(parts: PageParts): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · STATEK</title>
<link rel="stylesheet" href="/assets/ui.css">
${parts.live ? html`<script src="/assets/live.js" defer></script>` : ""}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">STATEK</a>
  <nav aria-label="Site"><a href="/">Jobs</a> · <a href="/approvals">Approvals</a> · <a href="/agents">Agents</a> · <a href="/docs/api">JSON API</a></nav>
  <span id="live-status" role="status" aria-live="polite">${parts.live ? "Live updates need JavaScript" : ""}</span>
  <span class="meta">signed in as <strong>${parts.who}</strong></span>
  ${parts.signOut ? html`<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${parts.signOut.csrf}"><button>Sign out</button></form>` : ""}
</header>
<main id="main" tabindex="-1"${parts.live ? html` data-live="${parts.live}"` : ""}>
${parts.body}
</main>
</body>
</html>`;
}

/** A message at the top of a page: a notice after an action, or a problem (role `alert`). */
export function banner(kind: "notice" | "problem", text: string | undefined): Html {
  if (!text) return html``;
  return kind === "problem" ? html`<p class="problem" role="alert">${text}</p>` : html`<p class="notice" role="status">${text}</p>`;
}
