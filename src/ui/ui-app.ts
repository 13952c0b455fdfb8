/**
 * @module
 * The UI as a Hono app: security headers on every response, who is asking (loopback or a token), the CSRF
 * cookie and checks of every POST, the login form for token-protected UIs, the assets, the pages and the API.
 */
import { Hono, type Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { html } from "hono/html";
import { formatError } from "../tools/call-tool.ts";
import { addApiRoutes } from "./api-routes.ts";
import { LIVE_SCRIPT, STYLESHEET } from "./html/assets.ts";
import { apiDocsPage } from "./html/api-docs-page.ts";
import { page } from "./html/layout.ts";
import { addPageRoutes, render } from "./page-routes.ts";
import type { UiEnv, UiParts } from "./ui-context.ts";
import { BROWSER_COOKIE, CSRF_FIELD } from "./ui-csrf.ts";
import { UiInputError } from "./ui-input-error.ts";

/** The session cookie of a token-protected UI. */
const SESSION_COOKIE = "statek_ui_session";

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

/** Builds the app over the UI's parts. */
export function createUiApp(parts: UiParts): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  const isApi = (context: Context) => context.req.path.startsWith("/api/");

  app.onError((error, context) => {
    const status = error instanceof UiInputError ? error.status : 500;
    const message = error instanceof UiInputError ? error.message : `internal error: ${formatError(error)}`;
    if (isApi(context)) return context.json({ error: message }, status);
    return context.html(page({ title: "Error", who: context.get("who") ?? "", body: html`<h1>Error</h1><p class="problem" role="alert">${message}</p><p><a href="/">All jobs</a></p>` }), status);
  });

  app.use(async (context, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) context.header(name, value);
  });

  app.get("/assets/ui.css", (context) => context.body(STYLESHEET, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "max-age=3600" }));
  app.get("/assets/live.js", (context) => context.body(LIVE_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "max-age=3600" }));

  // Who is asking, and the browser's CSRF id.
  app.use(async (context, next) => {
    let browserId = getCookie(context, BROWSER_COOKIE);
    if (!browserId || !/^[\w-]{16,64}$/.test(browserId)) {
      browserId = parts.csrf.newBrowserId();
      setCookie(context, BROWSER_COOKIE, browserId, { httpOnly: true, sameSite: "Strict", path: "/" });
    }
    context.set("browserId", browserId);
    context.set("csrfToken", parts.csrf.tokenFor(browserId));
    const session = getCookie(context, SESSION_COOKIE);
    context.set("session", parts.access.requiresToken ? session : undefined);
    const who = parts.access.identify({ host: context.req.header("Host"), authorization: context.req.header("Authorization"), session });
    if (who === null) return context.text("This UI answers only requests addressed to localhost (the Host header named another host).", 421);
    if (who !== undefined) context.set("who", who);
    const path = context.req.path;
    if (who === undefined && path !== "/login") {
      if (isApi(context)) return context.json({ error: "a token is required: Authorization: Bearer <token>" }, 401);
      if (context.req.method === "GET") return context.redirect(`/login?next=${encodeURIComponent(path + new URL(context.req.url).search)}`, 303);
      return context.text("Sign in first.", 401);
    }
    if (context.req.method === "POST") {
      const problem = await checkPost(context, parts);
      if (problem) return isApi(context) ? context.json({ error: problem }, 403) : context.text(problem, 403);
    }
    return next();
  });

  app.get("/login", (context) => {
    const next = safeNext(context.req.query("next"));
    if (!parts.access.requiresToken) return context.redirect(next, 303);
    return context.html(loginPage(context.get("csrfToken"), next, context.req.query("failed") !== undefined), context.req.query("failed") !== undefined ? 401 : 200);
  });

  app.post("/login", async (context) => {
    const fields = await context.req.parseBody();
    const next = safeNext(typeof fields["next"] === "string" ? fields["next"] : undefined);
    const name = typeof fields["token"] === "string" ? parts.access.nameOf(fields["token"]) : undefined;
    if (!name) return context.redirect(`/login?failed&next=${encodeURIComponent(next)}`, 303);
    const previous = getCookie(context, SESSION_COOKIE);
    if (previous) parts.access.closeSession(previous);
    setCookie(context, SESSION_COOKIE, parts.access.openSession(name), { httpOnly: true, sameSite: "Strict", path: "/" });
    return context.redirect(next, 303);
  });

  app.post("/logout", (context) => {
    const session = context.get("session");
    if (session) parts.access.closeSession(session);
    deleteCookie(context, SESSION_COOKIE, { path: "/" });
    return context.redirect("/login", 303);
  });

  app.get("/docs/api", (context) => render(context, "JSON API", apiDocsPage(), undefined));

  addApiRoutes(app, parts);
  addPageRoutes(app, parts);
  return app;
}

/**
 * Why a POST is refused, or `undefined`. Every POST must come from this UI's own pages (`Origin`, and
 * `Sec-Fetch-Site` when the browser sends them). Forms carry the browser's CSRF token; the API needs a JSON body
 * (which a page on another site cannot send without a CORS preflight this UI never answers).
 */
async function checkPost(context: Context<UiEnv>, parts: UiParts): Promise<string | undefined> {
  const origin = context.req.header("Origin");
  const host = context.req.header("Host");
  if (origin !== undefined && origin !== "null" && host !== undefined && new URL(origin).host !== host) return `cross-origin request refused (Origin ${origin})`;
  if (origin === "null") return "cross-origin request refused (Origin null)";
  if (context.req.header("Sec-Fetch-Site") === "cross-site") return "cross-site request refused";
  if (context.req.path.startsWith("/api/")) {
    if (!/^application\/json\b/i.test(context.req.header("Content-Type") ?? "")) return "the API takes JSON bodies (Content-Type: application/json)";
    return undefined;
  }
  // Hono keeps the parsed body, so the route reads the same fields.
  const fields = await context.req.parseBody();
  if (!parts.csrf.verify(context.get("browserId"), fields[CSRF_FIELD])) return "the form's CSRF token is missing or not this browser's: reload the page and try again";
  return undefined;
}

/** A `next` path after login: only a path on this UI. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

function loginPage(csrf: string, next: string, failed: boolean) {
  return page({
    title: "Sign in",
    who: "nobody",
    body: html`<h1>Sign in</h1>
${failed ? html`<p class="problem" role="alert">That token is not one this UI accepts.</p>` : ""}
<form class="action" method="post" action="/login">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><input type="hidden" name="next" value="${next}">
<label for="token">Token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button>Sign in</button></form>`,
  });
}
