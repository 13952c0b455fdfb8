/**
 * What an operator sees of a refused cell: `statek show` (the CLI, a real process) and the UI's job page (a real
 * server) show the refusal with its errors, after the code the model wrote.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { startUi } from "../src/ui/serve-ui.ts";
import { uiActionsOf } from "../src/ui/ui-actions.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const ts = (code: string) => "```ts\n" + code + "\n```";

describe("a refused cell on the operator's surfaces", () => {
  let directory: string;
  let store: string;
  let id: string;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "statek-typed-surfaces-"));
    store = join(directory, "statek.db");
    const schedule = tool({
      name: "schedule",
      description: "Schedule a reminder.",
      params: z.object({ at: z.date().describe("When.") }),
      run: async ({ at }) => at.toISOString(),
    });
    const agent = new Agent({
      role: "reminder",
      tools: [schedule],
      model: scriptedModel([ts("let when = 'tomorrow 9:00'\nawait schedule(when)"), ts("exit(await schedule(new Date(0)))")]),
    });
    const statek = await Statek.open({ store, agents: [agent] });
    id = (await statek.submitJob(agent)).id;
    const view = await statek.runJob(id);
    assert.equal(view.status, "DONE");
    await statek.close();
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("statek show prints the refusal, then the errors the model read", async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [BIN, "show", id, "--store", store], { cwd: directory, encoding: "utf8" }, (error, out) => (error ? reject(error) : resolve(out)));
    });
    assert.match(stdout, /await schedule\(when\)\n {2}✗ type check: cell refused, not run — 1 type error \(TS2345\)\n {2}✗ TypeError: line 2: Argument of type 'string' is not assignable to parameter of type 'Date'\. \(TS2345\)\n {2}note: the cell was not run/);
  });

  it("the UI's job page shows the refusal and each error at its line", async () => {
    const statek = await Statek.open({ store });
    const ui = await startUi({ store: statek.store, actions: uiActionsOf(statek), port: 0 });
    try {
      const page = await (await fetch(`${ui.url}/jobs/${id}`)).text();
      assert.match(page, /Type check refused the cell \(it did not run\) · 1 error/);
      assert.match(page, /line 2:16 TS2345: Argument of type &#39;string&#39; is not assignable to parameter of type &#39;Date&#39;\./);
    } finally {
      await ui.close();
      await statek.close();
    }
  });
});
