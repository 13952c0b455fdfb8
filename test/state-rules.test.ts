/**
 * What a job's state allows, the same through every door: a message pushed into a job that has finished for
 * good (`CANCELLED`, `FAILED`, a `DONE` job that is not a dialog) is refused by the API, by `statek push` in a
 * real process, and the UI offers only the actions the job's state allows.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Agent, JobFinishedError, Statek, scriptedModel } from "../src/index.ts";
import { startUi, type RunningUi } from "../src/ui/serve-ui.ts";
import { uiActionsOf } from "../src/ui/ui-actions.ts";
import { main } from "../src/cli/main.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const ts = (code: string) => "```ts\n" + code + "\n```";

const listener = new Agent({ role: "listener", model: scriptedModel([]), warmup: "const message = await waitForMessage()\nexit(message)" });
const broken = new Agent({ role: "broken", model: scriptedModel([]) });
const finisher = new Agent({ role: "finisher", model: scriptedModel([ts("exit('done')")]) });
const talker = new Agent({ role: "talker", chatStyle: "MD_DIALOG", model: scriptedModel(["Hello."]) });

let directory: string;
let store: string;
let statek: Statek;
let ui: RunningUi;
const ids: Record<"suspended" | "cancelled" | "failed" | "done" | "dialog", string> = { suspended: "", cancelled: "", failed: "", done: "", dialog: "" };

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "statek-state-rules-"));
  store = join(directory, "statek.db");
  statek = await Statek.open({ store, agents: [listener, broken, finisher, talker] });
  ids.suspended = (await statek.submitJob(listener)).id;
  assert.equal((await statek.runJob(ids.suspended)).status, "SUSPENDED");
  ids.cancelled = (await statek.submitJob(listener)).id;
  await statek.runJob(ids.cancelled);
  assert.equal((await statek.cancelJob(ids.cancelled, "no longer needed")).status, "CANCELLED");
  ids.failed = (await statek.submitJob(broken, { message: "go" })).id;
  assert.equal((await statek.runJob(ids.failed)).status, "FAILED");
  ids.done = (await statek.submitJob(finisher, { message: "go" })).id;
  assert.equal((await statek.runJob(ids.done)).status, "DONE");
  ids.dialog = (await statek.submitJob(talker, { message: "hi" })).id;
  assert.equal((await statek.runJob(ids.dialog)).status, "DONE");
  ui = await startUi({ store: statek.store, actions: uiActionsOf(statek), port: 0 });
});

after(async () => {
  await ui.close();
  await statek.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("pushing into a job", () => {
  it("is refused for every job that finished for good, and writes nothing", async () => {
    for (const [which, status] of [["cancelled", "CANCELLED"], ["failed", "FAILED"], ["done", "DONE"]] as const) {
      const before = (await statek.store.getJob(ids[which]))!;
      await assert.rejects(statek.pushMessage(ids[which], "are you there?"), (error: unknown) => {
        assert.ok(error instanceof JobFinishedError, String(error));
        assert.equal(error.status, status);
        assert.match(error.message, new RegExp(`job ${ids[which]} is ${status}`));
        return true;
      });
      const after = (await statek.store.getJob(ids[which]))!;
      assert.equal(after.historyLength, before.historyLength, `${which}: nothing appended`);
      assert.equal(after.status, status);
    }
  });

  it("is taken by a job that has not finished, and by a DONE dialog job (it starts again)", async () => {
    const dialog = await statek.pushMessage(ids.dialog, "one more thing");
    assert.equal(dialog.status, "STARTED");
  });

  it("statek push refuses a cancelled job, naming its status", async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, "push", ids.cancelled.slice(0, 8), "hello?", "--store", store], { encoding: "utf8" }, (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`cannot push to job ${ids.cancelled}: JobFinishedError: job ${ids.cancelled} is CANCELLED; a cancelled job takes no more messages`));
  });
});

describe("the UI's actions", () => {
  const formsOn = async (id: string) => {
    const text = await (await fetch(`${ui.url}/jobs/${id}`)).text();
    return [...text.matchAll(/<form class="action" method="post" action="\/jobs\/[^/]+\/([a-z/]+)"/g)].map((match) => match[1]);
  };

  it("are only those the job's state allows", async () => {
    assert.deepEqual(await formsOn(ids.suspended), ["message", "cancel"]);
    assert.deepEqual(await formsOn(ids.cancelled), []);
    // A job that asked its model can be forked from there (the failed one at turn 0, the done one at turns 0 and 1).
    assert.deepEqual(await formsOn(ids.failed), ["retry", "fork"]);
    assert.deepEqual(await formsOn(ids.done), ["fork", "fork"]);
    const page = await (await fetch(`${ui.url}/jobs/${ids.cancelled}`)).text();
    assert.match(page, /None: a CANCELLED job takes no messages and cannot be cancelled, retried or forked\./);
  });

  it("come after the waits, in the order an operator reads: status, waits, actions, timeline", async () => {
    const page = await (await fetch(`${ui.url}/jobs/${ids.suspended}`)).text();
    const order = [...page.matchAll(/<h2 id="([a-z]+)"/g)].map((match) => match[1]);
    assert.deepEqual(order.filter((id) => ["waits", "actions", "timeline"].includes(id!)), ["waits", "actions", "timeline"]);
    assert.ok(page.indexOf('class="status status-SUSPENDED"') < page.indexOf('id="waits"'));
  });
});

describe("statek show", () => {
  it("prints times in the local zone with how long ago, in plain words", async () => {
    const saved = process.env["TZ"];
    process.env["TZ"] = "Asia/Kolkata";
    let stdout = "";
    try {
      const code = await main(["show", ids.suspended, "--store", store], { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true } });
      assert.equal(code, 0);
    } finally {
      if (saved === undefined) delete process.env["TZ"];
      else process.env["TZ"] = saved;
    }
    assert.match(stdout, /^created {3}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 \((\d+ (ms|s|min) ago|just now)\)$/m);
    assert.match(stdout, /^── submitted \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 ──$/m);
    assert.doesNotMatch(stdout, /crossings|history\[/);
    assert.doesNotMatch(stdout, /\b1\d{12}\b/, "no epoch milliseconds");
  });
});
