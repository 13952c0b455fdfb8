/**
 * The UI's agents page in a real browser (Debian's chromium driven by playwright-core): per agent its jobs by
 * status, its loop's last queue size, queued events and breaker; resetting an open breaker by clicking; on a
 * phone-sized window too.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { startUi, type RunningUi } from "../src/ui/serve-ui.ts";
import { uiActionsOf } from "../src/ui/ui-actions.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const missing = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`;

describe("the agents page in a browser", { skip: missing }, () => {
  let dir: string;
  let statek: Statek;
  let ui: RunningUi;
  let browser: Browser;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "statek-ui-agents-"));
    const broken = new Agent({ role: "broken", eventVariable: "event", model: scriptedModel([]), warmup: "throw new Error('no setup')" });
    const fine = new Agent({ role: "fine", model: scriptedModel([]), warmup: "exit(1)" });
    statek = await Statek.open({ store: join(dir, "statek.db"), agents: [broken, fine] });
    assert.equal((await statek.runJob((await statek.submitJob(broken)).id)).status, "FAILED");
    await statek.pushAgentEvent("broken", { order: 1 });
    for (let n = 0; n < 3; n++) await statek.runJob((await statek.submitJob(fine)).id);
    ui = await startUi({ store: statek.store, actions: uiActionsOf(statek), host: "127.0.0.1", port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    await ui?.close();
    await statek?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows each agent's jobs, events and breaker, and resets an open breaker by clicking", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    await page.goto(ui.url);
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    const broken = page.getByRole("row", { name: /^broken/ });
    assert.match(await broken.innerText(), /Open since .*warmup block 1 of 1 failed: Error: no setup/);
    assert.equal(await broken.getByRole("cell").nth(8).innerText(), "1", "one queued event");
    assert.equal(await page.getByRole("link", { name: "fine: 3 DONE" }).count(), 1);
    await page.getByRole("button", { name: "Reset the breaker of broken" }).click();
    await page.getByText("The breaker of broken was reset.").waitFor();
    assert.match(await page.getByRole("row", { name: /^broken/ }).innerText(), /Closed/);
    assert.equal((await statek.agentHealth("broken")).state, "closed");
    assert.equal((await statek.agentHealth("broken")).queuedEvents, 1, "the queued event is kept");
    // A count links to the jobs list filtered by agent and status.
    await page.getByRole("link", { name: "fine: 3 DONE" }).click();
    await page.waitForURL(/\/\?agent=fine&status=DONE$/);
    assert.equal(await page.getByRole("row").count(), 4, "the header and three jobs");
    await page.context().close();
  });

  it("fits a phone-sized window", async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(`${ui.url}/agents`);
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"));
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    await page.context().close();
  });
});
