/**
 * @module
 * The UI's stylesheet and its one script, served from the UI itself (`/assets/…`): no fonts, CDNs or other
 * network resources. Pages work without the script; it only keeps them current (live updates by
 * server-sent events: on an event it fetches the page again and swaps its `<main>`, keeping open
 * `<details>`, the focused control and typed form text).
 */

/** `/assets/ui.css`. */
export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1d1f23; --bg: #fff; --muted: #5b6270; --line: #d7dbe2; --accent: #0b57d0; --bad: #b3261e; --ok: #1e7e34; --wait: #8a5a00; --code-bg: #f5f6f8; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --bg: #16181c; --muted: #a3aab6; --line: #343944; --accent: #8ab4f8; --bad: #f2b8b5; --ok: #8fd19e; --wait: #f6c66b; --code-bg: #1f2228; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
header.site { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; padding: 10px 20px; border-bottom: 1px solid var(--line); }
header.site .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
#live-status { margin-left: auto; color: var(--muted); font-size: 13px; }
main { padding: 16px 20px 40px; max-width: 1200px; }
h1 { font-size: 22px; margin: 4px 0 12px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 13px; } td.num, th.num { text-align: right; }
.wide { overflow-x: auto; max-width: 100%; }
.id { font-family: ui-monospace, monospace; font-size: 13px; }
.status { font-weight: 600; font-size: 12px; letter-spacing: .02em; } .status-FAILED { color: var(--bad); } .status-DONE { color: var(--ok); } .status-SUSPENDED { color: var(--wait); } .status-CANCELLED { color: var(--muted); }
ul.counts { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 0 0 12px; }
ul.counts a { display: inline-block; padding: 4px 10px; border: 1px solid var(--line); border-radius: 14px; text-decoration: none; }
ul.counts a[aria-current] { background: var(--accent); color: var(--bg); border-color: var(--accent); }
form.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; margin-bottom: 12px; }
form.filters label, form.action label { display: flex; flex-direction: column; font-size: 13px; color: var(--muted); gap: 2px; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; }
button { cursor: pointer; background: var(--code-bg); } button.danger { color: var(--bad); }
nav.pages { display: flex; gap: 16px; margin-top: 10px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; } dl.facts dt { color: var(--muted); }
pre { background: var(--code-bg); padding: 8px 10px; border-radius: 4px; overflow-x: auto; margin: 4px 0; font: 13px/1.4 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
pre.error, .error-text { color: var(--bad); }
.tok-comment { color: #6a737d; font-style: italic; } .tok-string { color: #22863a; } .tok-number { color: #005cc5; } .tok-keyword { color: #d73a49; font-weight: 600; }
@media (prefers-color-scheme: dark) { .tok-comment { color: #8b949e; } .tok-string { color: #a5d6a7; } .tok-number { color: #79c0ff; } .tok-keyword { color: #ff7b72; } }
section.turn { border-left: 3px solid var(--line); padding-left: 12px; margin: 14px 0; }
.record { margin: 6px 0; } .meta { color: var(--muted); font-size: 13px; }
details > summary { cursor: pointer; color: var(--accent); font-size: 13px; }
.notice { padding: 8px 12px; border-radius: 4px; border: 1px solid var(--ok); margin: 8px 0; }
.problem { padding: 8px 12px; border-radius: 4px; border: 1px solid var(--bad); color: var(--bad); margin: 8px 0; }
form.action { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin: 6px 0 12px; }
form.action textarea { min-width: min(320px, 100%); }
input, select, textarea { max-width: 100%; }
::placeholder { color: var(--muted); font-style: italic; opacity: .75; }
form.filters .hint { flex-basis: 100%; }
time[title], .span[title] { text-decoration: underline dotted var(--line); text-underline-offset: 3px; }
table.jobs td.id, table.jobs td.when { white-space: nowrap; }
dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
code, .id { overflow-wrap: anywhere; }
article.approval { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
/* A phone: one column, each job a card of labelled fields. */
@media (max-width: 640px) {
  header.site, main { padding-left: 12px; padding-right: 12px; }
  #live-status { margin-left: 0; }
  dl.facts { grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: 4px 10px; }
  form.filters label { flex: 1 1 40%; } form.filters input, form.filters select { width: 100%; }
  form.action input[size] { width: 100%; }
  table.jobs thead { position: absolute; left: -9999px; } table.jobs caption { display: block; text-align: left; margin-bottom: 6px; }
  table.jobs, table.jobs tbody, table.jobs tr, table.jobs td { display: block; width: 100%; }
  table.jobs tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 10px; padding: 4px 0; }
  table.jobs td { position: relative; border: 0; padding: 3px 10px 3px calc(7.5em + 18px); text-align: left; white-space: normal; overflow-wrap: anywhere; }
  table.jobs td::before { content: attr(data-label); position: absolute; left: 10px; width: 7.5em; color: var(--muted); font-size: 13px; font-weight: 600; }
  table.jobs td.num { text-align: left; } table.jobs td.id, table.jobs td.when { white-space: normal; }
  table.jobs td.empty { display: none; }
}
`;

/** `/assets/live.js`: live updates for the page it is on (its `<main data-live="…">` names the stream). */
export const LIVE_SCRIPT = `
(() => {
  const main = document.querySelector("main[data-live]");
  const status = document.getElementById("live-status");
  if (!main || !window.EventSource) return;
  let timer = 0, busy = false, again = false;
  const say = (text) => { if (status) status.textContent = text; };
  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(location.href, { headers: { "X-Statek-Live": "1" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(String(response.status));
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.querySelector("main[data-live]");
      const current = document.querySelector("main[data-live]");
      if (!fresh || !current) return;
      const open = new Set([...current.querySelectorAll("details[open][id]")].map((item) => item.id));
      const typed = new Map([...current.querySelectorAll("textarea[id], input[id]:not([type=hidden])")].filter((item) => item.value).map((item) => [item.id, item.value]));
      const focused = document.activeElement && document.activeElement.id;
      current.innerHTML = fresh.innerHTML;
      for (const id of open) { const item = document.getElementById(id); if (item) item.open = true; }
      for (const [id, value] of typed) { const item = document.getElementById(id); if (item) item.value = value; }
      if (focused) { const item = document.getElementById(focused); if (item) item.focus(); }
      document.dispatchEvent(new CustomEvent("statek:updated"));
    } catch (error) {
      say("Live: update failed, retrying");
    } finally {
      busy = false;
      if (again) { again = false; schedule(); }
    }
  };
  const schedule = () => { clearTimeout(timer); timer = setTimeout(refresh, 150); };
  const source = new EventSource(main.dataset.live);
  source.addEventListener("ready", () => say("Live"));
  source.addEventListener("job", schedule);
  source.onerror = () => say("Live: reconnecting…");
  // Relative times and running durations age without any event: a visible page is rendered again twice a minute.
  setInterval(() => { if (!document.hidden) schedule(); }, 30000);
})();
`;
