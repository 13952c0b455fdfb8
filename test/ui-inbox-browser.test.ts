/**
 * The approvals inbox and the phone-sized layout in a real browser (Debian's chromium driven by
 * playwright-core), over real jobs that asked for approval through a tool with `needsApproval`, with a worker
 * running: deciding from the inbox resumes the job, and another open inbox sees the decision live. The main pages
 * fit a 390 px wide window. With STATEK_UI_SCREENSHOTS=1 it also writes the inbox and phone screenshots
 * docs/ui.md shows.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool, type StatekWorker } from "../src/index.ts";
import { approvalElementId } from "../src/ui/html/approval-form.ts";
import { startUi, type RunningUi } from "../src/ui/serve-ui.ts";
import { uiActionsOf } from "../src/ui/ui-actions.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const SCREENSHOTS = process.env["STATEK_UI_SCREENSHOTS"] === "1";
const missing = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`;
const PHONE = { width: 390, height: 844 };

describe("the approvals inbox and the phone layout in a browser", { skip: missing }, () => {
  let dir: string;
  let statek: Statek;
  let worker: StatekWorker;
  let ui: RunningUi;
  let browser: Browser;
  const ids = { first: "", second: "", done: "" };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "statek-ui-inbox-"));
    const pay = tool({
      name: "pay",
      description: "Pays an invoice (needs a human's approval).",
      params: z.object({ amount: z.number().describe("The amount in euros.") }),
      needsApproval: true,
      run: ({ amount }, ctx) => `paid ${amount} (approved by ${ctx.approval?.by}: ${ctx.approval?.note})`,
    });
    const cell = "try {\n  exit(await pay(amount))\n} catch (error) {\n  exit('not paid: ' + error.message)\n}";
    const payer = new Agent({ role: "payer", tools: [pay], model: scriptedModel(["```ts\n" + cell + "\n```"]) });
    const greeter = new Agent({ role: "greeter", model: scriptedModel(["```ts\nprint('a long line of output that a phone must wrap rather than scroll sideways: ' + 'x'.repeat(120))\nexit({ greeting: 'hello', at: 'the desk of the night operator' })\n```"]) });
    statek = await Statek.open({ store: join(dir, "statek.db"), agents: [payer, greeter] });
    ids.done = (await statek.submitJob(greeter)).id;
    assert.equal((await statek.runJob(ids.done)).status, "DONE");
    ids.first = (await statek.submitJob(payer, { vars: { amount: 120 } })).id;
    ids.second = (await statek.submitJob(payer, { vars: { amount: 9_800 } })).id;
    for (const id of [ids.first, ids.second]) assert.equal((await statek.runJob(id)).status, "SUSPENDED");
    worker = statek.worker();
    await worker.start();
    ui = await startUi({ store: statek.store, actions: uiActionsOf(statek), host: "127.0.0.1", port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    await ui?.close();
    await worker?.stop();
    await statek?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const shot = async (page: Page, name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(import.meta.dirname, "..", "docs", "ui", `${name}.png`), fullPage: true });
  };
  const request = async (jobId: string) => (await statek.pendingApprovals({ jobId }))[0]!.requestId;
  const sideways = async (page: Page) => Number(await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"));

  it("the jobs list says what each job waits for and how long, with relative times and the exact ones on hover", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(ui.url);
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: ids.first }) });
    assert.match(await row.getByRole("cell").nth(3).innerText(), /^approval of pay · \d+ (ms|s)$/);
    assert.match(await row.getByRole("cell").nth(6).innerText(), /^\d+ (ms|s) so far$/);
    const created = row.getByRole("cell").nth(5).locator("time");
    assert.match(await created.innerText(), /^(just now|\d+ s ago)$/);
    assert.match(await created.getAttribute("title") ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const done = page.getByRole("row").filter({ has: page.getByRole("link", { name: ids.done }) });
    assert.equal(await done.getByRole("cell").nth(3).innerText(), "", "a finished job waits for nothing");
    assert.match(await done.getByRole("cell").nth(6).innerText(), /^\d+ (ms|s)$/, "a finished job's duration is final");
    await page.goto(`${ui.url}/jobs/${ids.first}`);
    assert.match(await page.getByRole("definition").filter({ hasText: /^approval of/ }).innerText(), /^approval of pay · \d+ (ms|s)$/);
    await page.context().close();
  });

  it("a page no event reaches is rendered again every 30 s, so its relative times and durations stay current", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    // Paused before the page loads: its fake time flows only when the test runs it, however slowly it loads.
    // (An installed clock ticks until paused, and a pause may only go forward: hence a minute ahead.)
    const start = Date.now();
    await page.clock.install({ time: start });
    await page.clock.pauseAt(start + 60_000);
    await page.goto(ui.url);
    await page.getByText("Live", { exact: true }).waitFor();
    const renders: string[] = [];
    page.on("request", (request) => void (request.headers()["x-statek-live"] === "1" && renders.push(request.url())));
    await page.clock.runFor(29_000);
    assert.deepEqual(renders, [], "nothing happened, nothing was fetched");
    const rendered = page.waitForResponse((response) => response.request().headers()["x-statek-live"] === "1");
    await page.clock.runFor(1_500);
    assert.equal((await rendered).status(), 200);
    await page.context().close();
  });

  it("fits a 390 px wide window: no page scrolls sideways", async () => {
    const page = await (await browser.newContext({ viewport: PHONE })).newPage();
    const paths = ["/", "/approvals", "/agents", `/jobs/${ids.first}`, `/jobs/${ids.done}`, "/docs/api"];
    for (const path of paths) {
      await page.goto(ui.url + path);
      await page.getByRole("heading", { level: 1 }).waitFor();
      assert.ok(await sideways(page) <= 0, `${path} scrolls sideways by ${await sideways(page)} px`);
    }
    await page.goto(ui.url);
    // Each job is a card: its fields stacked, the waits in full.
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: ids.first }) });
    const [id, waiting] = [await row.getByRole("cell").nth(0).boundingBox(), await row.getByRole("cell").nth(3).boundingBox()];
    assert.ok(id && waiting && waiting.y >= id.y + id.height && waiting.x + waiting.width <= PHONE.width, "the fields are stacked inside the window");
    assert.match(await row.getByRole("cell").nth(3).innerText(), /^approval of pay/);
    await shot(page, "jobs-phone");
    await page.goto(`${ui.url}/jobs/${ids.done}`);
    await shot(page, "job-phone");
    await page.goto(`${ui.url}/approvals`);
    await shot(page, "approvals-phone");
    await page.context().close();
  });

  it("approving from the inbox resumes the job; another open inbox sees it go, live; a denial with a note reaches the job", async () => {
    const first = await request(ids.first);
    const second = await request(ids.second);
    const watcher = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    await watcher.goto(`${ui.url}/approvals`);
    await watcher.getByRole("status").filter({ hasText: /^Live$/ }).waitFor();
    // A page without its script keeps its forms: it will post a decision already made.
    const stale = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await stale.goto(`${ui.url}/approvals`);
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    await page.goto(ui.url);
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Approvals" }).click();
    await page.getByRole("heading", { name: "Approvals" }).waitFor();
    assert.match(await page.getByText(/requests? waiting/).innerText(), /^2 requests waiting, oldest first/);
    const card = page.locator(`#${approvalElementId(first)}`);
    assert.match(await card.innerText(), new RegExp(`pay asks for approval · job ${ids.first.slice(0, 8)} \\(payer\\)`));
    assert.match(await card.innerText(), /"amount": 120/);
    await shot(page, "approvals");
    await card.getByLabel("Note").fill("invoice 4711 checked");
    await card.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Approved.").waitFor();
    assert.equal(await page.locator(`#${approvalElementId(first)}`).count(), 0, "the decided request has left the inbox");
    assert.equal(await page.locator(`#${approvalElementId(second)}`).count(), 1);
    // The other inbox, open all along, drops the request without a reload.
    await watcher.locator(`#${approvalElementId(first)}`).waitFor({ state: "detached" });
    assert.equal(await watcher.locator(`#${approvalElementId(second)}`).count(), 1);
    // The worker resumed the job: the tool ran with the decision.
    await page.goto(`${ui.url}/jobs/${ids.first}`);
    await page.getByRole("heading", { level: 1, name: /DONE/ }).waitFor();
    assert.equal((await statek.getJob(ids.first))!.exitStatus, "paid 120 (approved by local: invoice 4711 checked)");

    await page.goto(`${ui.url}/approvals`);
    const other = page.locator(`#${approvalElementId(second)}`);
    await other.getByLabel("Note").fill("over the limit");
    await other.getByRole("button", { name: "Deny" }).click();
    await page.getByText("Denied.").waitFor();
    await page.getByText("No approval requests are waiting.").waitFor();
    await page.goto(`${ui.url}/jobs/${ids.second}`);
    await page.getByRole("heading", { level: 1, name: /DONE/ }).waitFor();
    assert.match(String((await statek.getJob(ids.second))!.exitStatus), /^not paid: .*over the limit/);
    // The stale inbox's form: the request was decided since; the inbox says by whom, once.
    await stale.locator(`#${approvalElementId(first)}`).getByRole("button", { name: "Deny" }).click();
    const alert = stale.getByRole("alert");
    await alert.waitFor();
    assert.equal(await alert.count(), 1);
    assert.match(await alert.innerText(), /already approved by local/);
    assert.equal((await statek.getJob(ids.first))!.exitStatus, "paid 120 (approved by local: invoice 4711 checked)");
    await stale.context().close();
    await watcher.context().close();
    await page.context().close();
  });
});
