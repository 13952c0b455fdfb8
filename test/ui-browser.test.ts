/**
 * The web UI in a real browser: Debian's chromium driven by playwright-core. Tests open pages, click
 * actions, and watch live updates arrive in another open page without a reload. With STATEK_UI_SCREENSHOTS=1 they
 * also write the screenshots docs/ui.md shows.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { Agent, scriptedModel } from "../src/index.ts";
import { startUiFixture, type UiFixture } from "./support/ui-fixture.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const SCREENSHOTS = process.env["STATEK_UI_SCREENSHOTS"] === "1";
const missing = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`;

describe("web UI in a browser", { skip: missing }, () => {
  let fixture: UiFixture;
  let browser: Browser;
  before(async () => {
    fixture = await startUiFixture();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    await fixture?.close();
  });

  const shot = async (page: import("playwright-core").Page, name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(import.meta.dirname, "..", "docs", "ui", `${name}.png`), fullPage: true });
  };

  it("a message pushed from one page appears live in another open on the same job", async () => {
    const watcher = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await watcher.goto(`${fixture.ui.url}/jobs/${fixture.ids.child}`);
    await watcher.getByRole("status").filter({ hasText: /^Live$/ }).waitFor();
    const actor = await (await browser.newContext()).newPage();
    await actor.goto(`${fixture.ui.url}/jobs/${fixture.ids.child}`);
    await actor.getByLabel("Message to the job").fill("Please also book a room.");
    await actor.getByRole("button", { name: "Push message" }).click();
    await actor.getByText("Message pushed.").waitFor();
    // No reload in the watcher: the event stream brought it.
    await watcher.getByRole("heading", { name: /Operator: push-message by local/ }).waitFor();
    assert.equal(await watcher.getByText("Please also book a room.").count(), 1);
    await watcher.context().close();
    await actor.context().close();
  });

  it("resolves a waiting future by clicking, and the page says so", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.goto(`${fixture.ui.url}/jobs/${fixture.ids.waiting}`);
    await shot(page, "job-waiting");
    await page.getByLabel("Value").fill('{"paid": true}');
    await page.getByRole("combobox", { name: "As" }).selectOption("json");
    await page.getByRole("button", { name: "Resolve" }).click();
    await page.getByText("Future resolved.").waitFor();
    assert.deepEqual((await fixture.store.getFuture("payment:1"))!.value, { paid: true });
    assert.equal(await page.getByText("Not waiting for anything.").count(), 1);
    await page.context().close();
  });

  it("approves a request with a note; a refused action shows why", async () => {
    // A second operator's tab without scripts keeps the form it loaded: a stale form, whatever live updates do.
    const stale = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await stale.goto(`${fixture.ui.url}/jobs/${fixture.ids.approval}`);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${fixture.ui.url}/jobs/${fixture.ids.approval}`);
    await page.getByLabel("Note").fill("ok for Friday");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Approved.").waitFor();
    const history = await fixture.store.getHistory(fixture.ids.approval);
    assert.equal((history.at(-1)!.data as { note: string }).note, "ok for Friday");
    // The stale form: the request was decided in the meantime.
    await stale.getByRole("button", { name: "Deny" }).click();
    await stale.getByRole("alert").filter({ hasText: /already approved by local .*; the first decision stands/ }).waitFor();
    await stale.context().close();
    await page.context().close();
  });

  it("the jobs list updates live, filters by status, and is keyboard navigable", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    await page.goto(fixture.ui.url);
    await page.getByRole("status").filter({ hasText: /^Live$/ }).waitFor();
    await shot(page, "jobs");
    const agent = new Agent({ role: "late_arrival", model: scriptedModel(["```ts\nexit(1)\n```"]) });
    const { id } = await fixture.statek.submitJob(agent);
    // A worker's commits append events (the events engine); here the event is appended as it will be.
    await fixture.store.appendEvents([{ jobId: id, kind: "job-created", data: null }]);
    await page.getByRole("link", { name: id }).waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement?.textContent"), "Skip to content");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate("document.activeElement?.id"), "main");
    await page.getByRole("link", { name: /^DONE/ }).click();
    await page.waitForURL(/status=DONE/);
    assert.equal(await page.getByRole("link", { name: fixture.ids.waiting }).count(), 0);
    await page.goto(`${fixture.ui.url}/jobs/${fixture.ids.done}`);
    await shot(page, "job-done");
    await page.context().close();
  });
});
