/**
 * The UI over HTTP, against a real server and a real SQLite store: pages, filters, the JSON API, actions recorded
 * with who did them, CSRF and origin checks, tokens, the Host check, hostile input, live events with resumption.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { startUiFixture, type UiFixture } from "../../test/support/ui-fixture.ts";
import { startUi } from "./serve-ui.ts";

/** A tiny browser: keeps cookies, reads the CSRF token from pages. */
class Client {
  readonly #cookies = new Map<string, string>();
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size) headers.set("Cookie", [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(this.base + path, { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=");
      this.#cookies.set(name!, value!);
    }
    return response;
  }
  async page(path: string): Promise<{ status: number; text: string; csrf: string }> {
    const response = await this.request(path);
    const text = await response.text();
    return { status: response.status, text, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? "" };
  }
  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, { method: "POST", body: new URLSearchParams(fields), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  }
}

describe("web UI over HTTP", () => {
  let fixture: UiFixture;
  before(async () => {
    fixture = await startUiFixture();
  });
  after(async () => {
    await fixture.close();
  });

  it("lists jobs with counts by status, filters and searches by id prefix", async () => {
    const client = new Client(fixture.ui.url);
    const list = await client.page("/");
    assert.equal(list.status, 200);
    for (const id of Object.values(fixture.ids)) assert.match(list.text, new RegExp(`href="/jobs/${id}"`));
    assert.match(list.text, /SUSPENDED <strong>2<\/strong>/);
    const suspended = await client.page("/?status=SUSPENDED");
    assert.doesNotMatch(suspended.text, new RegExp(fixture.ids.done));
    assert.match(suspended.text, new RegExp(fixture.ids.waiting));
    const byPrefix = await (await client.request(`/api/jobs?q=${fixture.ids.waiting.slice(0, 6)}`)).json() as { jobs: Array<{ id: string }> };
    assert.deepEqual(byPrefix.jobs.map((job) => job.id), [fixture.ids.waiting]);
    const children = await (await client.request(`/api/jobs?parent=${fixture.ids.done}`)).json() as { jobs: Array<{ id: string }> };
    assert.deepEqual(children.jobs.map((job) => job.id), [fixture.ids.child]);
    const bad = await client.page("/?status=LOST");
    assert.equal(bad.status, 400);
    assert.match(bad.text, /unknown status &quot;LOST&quot;/);
    const badApi = await client.request("/api/jobs?from=tomorrow");
    assert.equal(badApi.status, 400);
    assert.match(((await badApi.json()) as { error: string }).error, /from must be a date/);
  });

  it("pages through the list by cursor", async () => {
    const client = new Client(fixture.ui.url);
    const first = await (await client.request("/api/jobs?limit=3")).json() as { jobs: Array<{ id: string }>; older: string; newer: string | null };
    assert.equal(first.jobs.length, 3);
    assert.equal(first.newer, null);
    const second = await (await client.request(`/api/jobs?limit=3&before=${encodeURIComponent(first.older)}`)).json() as { jobs: Array<{ id: string }>; older: string | null; newer: string };
    assert.equal(second.jobs.length, 1);
    assert.equal(second.older, null);
    const back = await (await client.request(`/api/jobs?limit=3&after=${encodeURIComponent(second.newer)}`)).json() as { jobs: Array<{ id: string }> };
    assert.deepEqual(back.jobs.map((job) => job.id), first.jobs.map((job) => job.id));
  });

  it("shows a job: header, highlighted code, tool call, console, exit value, children", async () => {
    const client = new Client(fixture.ui.url);
    const job = await client.page(`/jobs/${fixture.ids.done}`);
    assert.equal(job.status, 200);
    assert.match(job.text, /<span class="tok-comment">\/\/ say hello<\/span>/);
    assert.match(job.text, /<span class="tok-keyword">const<\/span> word = <span class="tok-string">&#39;hello&#39;<\/span>/);
    assert.match(job.text, /<code>lookup<\/code>/);
    assert.match(job.text, /hello: a greeting/);
    assert.match(job.text, /<dt>Exit value<\/dt><dd><pre class="output">\{word:&quot;hello&quot;,n:42\}<\/pre>/);
    assert.match(job.text, new RegExp(`href="/jobs/${fixture.ids.child}"`));
    const missing = await client.page("/jobs/nope");
    assert.equal(missing.status, 404);
  });

  it("resolves a future from the form, records who did it, and refuses a second settlement", async () => {
    const client = new Client(fixture.ui.url);
    const page = await client.page(`/jobs/${fixture.ids.waiting}`);
    assert.match(page.text, /payment:1/);
    const response = await client.post(`/jobs/${fixture.ids.waiting}/future/resolve`, { _csrf: page.csrf, key: "payment:1", value: '{"ok":true}', format: "json" });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("Location"), `/jobs/${fixture.ids.waiting}?notice=resolve-future`);
    assert.deepEqual((await fixture.store.getFuture("payment:1"))!.value, { ok: true });
    const history = await fixture.store.getHistory(fixture.ids.waiting);
    const last = history[history.length - 1]!;
    assert.equal(last.kind, "operator-action");
    assert.deepEqual(last.data, { action: "resolve-future", by: "local", via: "web UI", target: "payment:1", v: 1 });
    const again = await client.post(`/jobs/${fixture.ids.waiting}/future/resolve`, { _csrf: page.csrf, key: "payment:1", value: "x", format: "text" });
    assert.equal(again.status, 409);
    assert.match(await again.text(), /future &quot;payment:1&quot; is resolved already/);
    const view = await fixture.statek.runJob(fixture.ids.waiting);
    assert.equal(view.status, "DONE", "the job resumed with the value");
    assert.deepEqual(view.exitStatus, { ok: true });
  });

  it("offers no resolve form for an approval request, and refuses resolving one through the form or the API, naming how it is settled", async () => {
    const client = new Client(fixture.ui.url);
    const key = `${fixture.ids.approval}:0:1`;
    const page = await client.page(`/jobs/${fixture.ids.approval}`);
    assert.doesNotMatch(page.text, new RegExp(`aria-label="Resolve ${key}"`), "no resolve form for an approval request");
    const form = await client.post(`/jobs/${fixture.ids.approval}/future/resolve`, { _csrf: page.csrf, key, value: "ok", format: "text" });
    assert.equal(form.status, 409);
    assert.match(await form.text(), /is an approval request: it is decided by approving or denying it, not by resolving or rejecting it/);
    const api = await client.request(`/api/jobs/${fixture.ids.approval}/future/reject`, {
      method: "POST", body: JSON.stringify({ key, error: "no" }), headers: { "Content-Type": "application/json", Origin: fixture.ui.url },
    });
    assert.equal(api.status, 409);
    assert.equal((await fixture.store.getFuture(key))?.state, "waiting", "the request still waits for a decision");
    assert.equal((await fixture.store.getHistory(fixture.ids.approval)).filter((row) => row.kind === "operator-action").length, 0, "nothing recorded");
  });

  it("refuses a form without this browser's CSRF token, and a cross-origin POST", async () => {
    const client = new Client(fixture.ui.url);
    await client.page(`/jobs/${fixture.ids.approval}`);
    const forged = await client.post(`/jobs/${fixture.ids.approval}/message`, { _csrf: "forged", message: "hi" });
    assert.equal(forged.status, 403);
    const other = new Client(fixture.ui.url);
    const { csrf } = await other.page(`/jobs/${fixture.ids.approval}`);
    const stolen = await client.post(`/jobs/${fixture.ids.approval}/message`, { _csrf: csrf, message: "hi" });
    assert.equal(stolen.status, 403, "another browser's token does not pass");
    const crossOrigin = await other.request(`/jobs/${fixture.ids.approval}/message`, {
      method: "POST", body: new URLSearchParams({ _csrf: csrf, message: "hi" }), headers: { Origin: "http://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
    });
    assert.equal(crossOrigin.status, 403);
    const textApi = await other.request(`/api/jobs/${fixture.ids.approval}/message`, { method: "POST", body: '{"message":"hi"}', headers: { "Content-Type": "text/plain" } });
    assert.equal(textApi.status, 403);
    assert.equal((await fixture.store.getHistory(fixture.ids.approval)).filter((row) => row.kind === "user-message").length, 0, "nothing was pushed");
  });

  it("approves from the page through the actions, with the note and who decided", async () => {
    const client = new Client(fixture.ui.url);
    const page = await client.page(`/jobs/${fixture.ids.approval}`);
    assert.match(page.text, /<code>moveMeeting<\/code> asks for approval/);
    assert.match(page.text, /Move the board meeting/);
    const key = `${fixture.ids.approval}:0:1`;
    const response = await client.post(`/jobs/${fixture.ids.approval}/approval`, { _csrf: page.csrf, requestId: key, decision: "approve", note: "fine by me" });
    assert.equal(response.status, 303);
    const { decidedAt, ...decision } = (await fixture.store.getFuture(key))!.value as Record<string, unknown>;
    assert.deepEqual(decision, { approved: true, note: "fine by me", by: "local" });
    assert.equal(typeof decidedAt, "number");
    const history = await fixture.store.getHistory(fixture.ids.approval);
    assert.deepEqual(history[history.length - 1]!.data, { action: "approve", by: "local", via: "web UI", target: key, note: "fine by me", v: 1 });
  });

  it("the JSON API pushes a message and reports refusals as JSON with their status", async () => {
    const client = new Client(fixture.ui.url);
    const json = { "Content-Type": "application/json" };
    const pushed = await client.request(`/api/jobs/${fixture.ids.child}/message`, { method: "POST", body: JSON.stringify({ message: "from a script" }), headers: json });
    assert.equal(pushed.status, 200);
    const details = await (await client.request(`/api/jobs/${fixture.ids.child}`)).json() as { history: Array<{ kind: string; data: Record<string, unknown> }> };
    const kinds = details.history.map((record) => record.kind);
    assert.deepEqual(kinds.slice(-2), ["user-message", "operator-action"]);
    assert.equal(details.history.at(-1)!.data["via"], "JSON API");
    const empty = await client.request(`/api/jobs/${fixture.ids.child}/message`, { method: "POST", body: JSON.stringify({ message: "  " }), headers: json });
    assert.equal(empty.status, 400);
    assert.deepEqual(await empty.json(), { error: "message must not be empty" });
    const notJson = await client.request(`/api/jobs/${fixture.ids.child}/message`, { method: "POST", body: "{", headers: json });
    assert.equal(notJson.status, 400);
    const unknown = await client.request(`/api/jobs/nobody/retry`, { method: "POST", body: "{}", headers: json });
    assert.equal(unknown.status, 404);
  });

  it("streams events live and resumes after Last-Event-ID", async () => {
    const client = new Client(fixture.ui.url);
    const controller = new AbortController();
    const response = await client.request(`/api/events?job=${fixture.ids.child}`, { signal: controller.signal });
    assert.equal(response.headers.get("Content-Type"), "text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += decoder.decode(value);
      }
    };
    await readUntil(/event: ready/);
    await fixture.store.appendEvents([{ jobId: fixture.ids.done, kind: "other-job", data: null }, { jobId: fixture.ids.child, kind: "step-end", data: null }]);
    await readUntil(/"kind":"step-end"/);
    assert.doesNotMatch(text, /other-job/, "only the job's events");
    const lastId = /"id":(\d+),"jobId":"[^"]+","kind":"step-end"/.exec(text)![1]!;
    controller.abort();
    await fixture.store.appendEvents([{ jobId: fixture.ids.child, kind: "while-away", data: null }]);
    const resumed = await client.request(`/api/events?job=${fixture.ids.child}`, { headers: { "Last-Event-ID": lastId } });
    const again = resumed.body!.getReader();
    let resumedText = "";
    while (!/while-away/.test(resumedText)) resumedText += decoder.decode((await again.read()).value);
    assert.doesNotMatch(resumedText, /step-end/, "nothing twice");
    await again.cancel();
  });

  it("escapes hostile text everywhere it shows", async () => {
    const client = new Client(fixture.ui.url);
    const page = await client.page(`/jobs/${fixture.ids.child}`);
    await client.post(`/jobs/${fixture.ids.child}/message`, { _csrf: page.csrf, message: "<script>alert(1)</script><img src=x onerror=alert(2)>" });
    const shown = await client.page(`/jobs/${fixture.ids.child}`);
    assert.doesNotMatch(shown.text, /<script>alert|<img src=x/);
    assert.match(shown.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match((await client.request("/")).headers.get("Content-Security-Policy") ?? "", /default-src 'none'/);
  });
});

describe("web UI access", () => {
  it("refuses a non-loopback host without a token, with a clear message", async () => {
    await assert.rejects(startUi({ store: {} as never, actions: {} as never, host: "0.0.0.0", port: 0 }), /refusing to serve on 0\.0\.0\.0 without a token/);
  });

  it("answers only Host headers naming localhost when open", async () => {
    const fixture = await startUiFixture();
    try {
      // fetch() sets Host itself; a raw request sends what a rebinding attack would.
      const status = await new Promise<number>((resolve, reject) => {
        request(`${fixture.ui.url}/`, { headers: { Host: "attacker.example:4870" } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        }).on("error", reject).end();
      });
      assert.equal(status, 421);
    } finally {
      await fixture.close();
    }
  });

  it("with tokens: scripts send a bearer token, browsers sign in, actions are recorded under the token's name", async () => {
    const fixture = await startUiFixture({ tokens: [{ name: "alice", secret: "alice-secret-0123456789" }] });
    try {
      assert.equal((await fetch(`${fixture.ui.url}/api/jobs`)).status, 401);
      assert.equal((await fetch(`${fixture.ui.url}/api/jobs`, { headers: { Authorization: "Bearer wrong-secret-0123456789" } })).status, 401);
      const ok = await fetch(`${fixture.ui.url}/api/jobs/${fixture.ids.child}/message`, {
        method: "POST", body: JSON.stringify({ message: "hi" }), headers: { Authorization: "Bearer alice-secret-0123456789", "Content-Type": "application/json" },
      });
      assert.equal(ok.status, 200);
      const history = await fixture.store.getHistory(fixture.ids.child);
      assert.equal((history.at(-1)!.data as { by: string }).by, "alice");
      const browser = new Client(fixture.ui.url);
      const redirect = await browser.request("/jobs/x");
      assert.equal(redirect.status, 303);
      assert.equal(redirect.headers.get("Location"), "/login?next=%2Fjobs%2Fx");
      const login = await browser.page("/login?next=/");
      const failed = await browser.post("/login", { _csrf: login.csrf, token: "nope", next: "/" });
      assert.match(failed.headers.get("Location")!, /failed/);
      const signedIn = await browser.post("/login", { _csrf: login.csrf, token: "alice-secret-0123456789", next: "//evil.example" });
      assert.equal(signedIn.headers.get("Location"), "/", "no redirect off the UI");
      assert.match((await browser.page("/")).text, /signed in as <strong>alice<\/strong>/);
    } finally {
      await fixture.close();
    }
  });
});

describe("web UI: forks", () => {
  let fixture: UiFixture;
  before(async () => {
    fixture = await startUiFixture();
  });
  after(async () => {
    await fixture.close();
  });

  it("offers a fork at the end of each ended turn; the form makes the new job and leads to it, the original unchanged", async () => {
    const client = new Client(fixture.ui.url);
    const original = await client.page(`/jobs/${fixture.ids.done}`);
    assert.match(original.text, /<form class="action" method="post" action="\/jobs\/[^"]+\/fork" aria-label="Fork from the end of turn 1">/);
    assert.match(original.text, /<input type="hidden" name="turn" value="1"><button>Fork from here<\/button>/);
    const waiting = await client.page(`/jobs/${fixture.ids.waiting}`);
    assert.doesNotMatch(waiting.text, /Fork from the end of turn 1/, "turn 1 of the waiting job is still being executed");
    const before = await fixture.store.getHistory(fixture.ids.done);

    const response = await client.post(`/jobs/${fixture.ids.done}/fork`, { _csrf: original.csrf, turn: "1", message: "Look up another word." });
    assert.equal(response.status, 303);
    const location = response.headers.get("Location")!;
    const forkId = /^\/jobs\/([0-9a-f-]{36})\?notice=fork$/.exec(location)?.[1];
    assert.ok(forkId && forkId !== fixture.ids.done, location);
    const fork = await client.page(location);
    assert.match(fork.text, /This job is a fork: it starts by asking its model/);
    assert.match(fork.text, new RegExp(`<dt>Forked from</dt><dd><a class="id" href="/jobs/${fixture.ids.done}">${fixture.ids.done}</a>, at the end of turn 1</dd>`));
    const view = (await fixture.statek.getJob(forkId))!;
    assert.deepEqual(view.forkedFrom, { jobId: fixture.ids.done, turn: 1 });
    assert.equal(view.status, "READY");
    assert.deepEqual(view.variables, { word: "hello", meaning: "hello: a greeting" });
    assert.deepEqual(view.history.slice(-2).map((record) => record.kind), ["user-message", "operator-action"]);
    assert.deepEqual(view.history.at(-1)!.data, { action: "fork", by: "local", via: "web UI", target: `job ${fixture.ids.done}, turn 1` });
    assert.deepEqual(await fixture.store.getHistory(fixture.ids.done), before, "the original is not changed");

    const json = { "Content-Type": "application/json" };
    const api = await client.request(`/api/jobs/${fixture.ids.done}/fork`, { method: "POST", body: JSON.stringify({ turn: 0 }), headers: json });
    assert.equal(api.status, 200);
    const answer = await api.json() as { ok: boolean; jobId: string };
    const details = await (await client.request(`/api/jobs/${answer.jobId}`)).json() as { job: { forkedFrom: unknown; status: string } };
    assert.deepEqual(details.job.forkedFrom, { jobId: fixture.ids.done, turn: 0 });
    assert.equal(details.job.status, "READY");
    const beyond = await client.request(`/api/jobs/${fixture.ids.done}/fork`, { method: "POST", body: JSON.stringify({ turn: 5 }), headers: json });
    assert.equal(beyond.status, 409);
    assert.match(((await beyond.json()) as { error: string }).error, /forkJob refused: ForkTurnError: forkJob: job \S+ has 1 turn; there is no turn 5/);
    const bad = await client.post(`/jobs/${fixture.ids.done}/fork`, { _csrf: original.csrf, turn: "one" });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /turn must be a turn number/);
  });
});
