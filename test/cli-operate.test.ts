/**
 * `statek show` of a job's durable state (the current cell's journal, pending waits) and `statek cancel` /
 * `statek retry` / `statek fork`, run as real child processes against a real SQLite file.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { openStore } from "../src/store/index.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const ts = (code: string) => "```ts\n" + code + "\n```";

let directory: string;
let store: string;
let suspendedId: string;
let failedId: string;
let doneId: string;
let doubtId: string;

function statek(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: directory, encoding: "utf8" }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

const book = tool({
  name: "book", description: "Book a room.", params: z.object({ room: z.string().describe("The room.") }),
  run: ({ room }) => `booked ${room}`,
});

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "statek-cli-operate-"));
  store = join(directory, "jobs.db");
  const waiter = new Agent({ role: "waiter", tools: [book], model: scriptedModel([ts("await book('4.01')\nawait sleep(3_600_000)\nexit(1)")]) });
  const quitter = new Agent({ role: "quitter", model: scriptedModel([]) });
  const finisher = new Agent({ role: "finisher", model: scriptedModel([ts("exit(1)")]) });
  const app = await Statek.open({ store, agents: [waiter, quitter, finisher] });
  suspendedId = (await app.submitJob(waiter)).id;
  assert.equal((await app.runJob(suspendedId)).status, "SUSPENDED");
  failedId = (await app.submitJob(quitter)).id;
  assert.equal((await app.runJob(failedId)).status, "FAILED");
  doneId = (await app.submitJob(finisher)).id;
  assert.equal((await app.runJob(doneId)).status, "DONE");
  // A cell whose worker died inside a side-effecting call: its intent has no result.
  doubtId = (await app.submitJob(finisher)).id;
  const lease = await app.store.claimJob(doubtId, "worker-that-died", 1);
  await app.store.appendJournal(doubtId, { owner: lease!.owner, epoch: lease!.epoch }, 0, [
    { index: 0, data: { t: "msg", seq: 0, op: "now", h: 1, w: "Date.now()", r: "5" } },
    { index: 1, data: { t: "intent", seq: 1, op: "call", h: 2, w: "moveMeeting(…)" } },
    { index: 2, data: "not an item" },
  ]);
  await app.close();
});

after(() => rmSync(directory, { recursive: true, force: true }));

describe("statek show: durable state", () => {
  it("shows a suspended job's journal and the timer it waits for", async () => {
    const { code, stdout, stderr } = await statek("show", suspendedId, "--store", store);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^journal {3}cell 0 in progress: 3 calls out of the sandbox recorded \(4 journal entries; 0 results settled, 0 deliveries\)$/m);
    assert.match(stdout, /^ {2}cell #0 +done +book\(…\)$/m, "the tool call, with its result recorded");
    assert.match(stdout, /^ {2}cell #2 +done +future\(…\)$/m, "the wait");
    assert.match(stdout, new RegExp(`^waits {5}1 pending\n {2}timer +${suspendedId}:0:2 +due \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d \\(in (59|60) min\\) +\\{"ms":3600000\\}$`, "m"));
  });

  it("marks an intent without its result as in doubt, and an unreadable entry as such", async () => {
    const { code, stdout } = await statek("show", doubtId, "--store", store);
    assert.equal(code, 0);
    assert.match(stdout, /^journal {3}cell 0 in progress: 2 calls out of the sandbox recorded \(3 journal entries/m);
    assert.match(stdout, /^ {2}#0 +done +Date\.now\(\)$/m);
    assert.match(stdout, /^ {2}#1 +in doubt +moveMeeting\(…\)$/m);
    assert.match(stdout, /^ {2}#2 +✗ TypeError: malformed journal item: not an object$/m);
    assert.doesNotMatch(stdout, /^waits/m);
  });

  it("puts the journal, the waits and the lease in --json", async () => {
    const { stdout } = await statek("show", suspendedId, "--json", "--store", store);
    const shown = JSON.parse(stdout) as { journal: { cell: number; entries: unknown[] }; waits: Array<{ kind: string }>; lease: unknown };
    assert.equal(shown.journal.cell, 0);
    assert.ok(shown.journal.entries.length > 0);
    assert.deepEqual(shown.waits.map((wait) => wait.kind), ["timer"]);
    assert.equal(shown.lease, null);
  });
});

describe("statek cancel and retry", () => {
  it("cancels a job with a reason; cancelling it again is an error naming its status", async () => {
    const { code, stdout, stderr } = await statek("cancel", suspendedId.slice(0, 8), "--reason", "room no longer needed", "--store", store);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `job ${suspendedId} CANCELLED: room no longer needed\n`);
    const opened = await openStore(store);
    try {
      assert.equal((await opened.getJob(suspendedId))!.status, "CANCELLED");
      assert.deepEqual((await opened.listFutures(suspendedId)).map((future) => future.state), ["cancelled"]);
    } finally {
      await opened.close();
    }
    const shown = await statek("show", suspendedId, "--store", store);
    assert.doesNotMatch(shown.stdout, /^waits/m, "no pending waits once cancelled");
    const again = await statek("cancel", suspendedId, "--store", store);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `statek: InvalidJobStatusError: cancelJob: job ${suspendedId} is CANCELLED; only a job that has not finished can be cancelled\n`);
    const empty = await statek("cancel", suspendedId, "--reason", " ", "--store", store);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--reason needs a non-empty text/);
  });

  it("runs the cancelled job's error handlers when given --agents", async () => {
    const { claimer } = await import("./fixtures/cancel-agents.ts");
    const released = join(directory, "released.txt");
    const app = await Statek.open({ store, agents: [claimer] });
    let id: string;
    try {
      id = (await app.submitJob(claimer, { vars: { ticket: "T-1", file: released } })).id;
      assert.equal((await app.runJob(id)).status, "SUSPENDED");
    } finally {
      await app.close();
    }
    const { code, stderr } = await statek("cancel", id, "--agents", join(import.meta.dirname, "fixtures/cancel-agents.ts"), "--store", store);
    assert.equal(code, 0, stderr);
    assert.equal(readFileSync(released, "utf8"), "T-1 released: JobCancelledError\n");
  });

  it("retries a FAILED job; a DONE one is refused", async () => {
    const { code, stdout, stderr } = await statek("retry", failedId, "--json", "--store", store);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { id: failedId, status: "STARTED" });
    const refused = await statek("retry", doneId, "--store", store);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /retryJob: job \S+ is DONE; only a FAILED job can be retried/);
  });

  it("has help for both", async () => {
    for (const [name, synopsis] of [["cancel", "statek cancel <id> [--reason TEXT] [--agents MODULE] [--json] [--store STORE]"], ["retry", "statek retry <id> [--json] [--store STORE]"]]) {
      const { code, stdout } = await statek(name!, "--help");
      assert.equal(code, 0);
      assert.ok(stdout.startsWith(`Usage: ${synopsis}\n`), stdout);
    }
    assert.match((await statek("--help")).stdout, /cancel +Cancel a job that has not finished, and its child jobs\.\n {2}retry +Resume a FAILED job/);
  });
});

describe("statek approvals, approve and deny", () => {
  const pay = tool({
    name: "pay", description: "Pay an invoice.", params: z.object({ amount: z.number().describe("How much.") }),
    needsApproval: true,
    run: ({ amount }, ctx) => `paid ${amount} (approved by ${ctx.approval?.by ?? "nobody"}: ${ctx.approval?.note ?? ""})`,
  });
  const code = "print(await pay(450))\ntry { await requestApproval('Pay 9,000 too?') } catch (error) { print(error.name + ': ' + error.message) }\nexit()";
  const payer = new Agent({ role: "payer", tools: [pay], model: scriptedModel([ts(code)]) });

  it("lists a job's pending request, approves it without naming it, denies the next one; the job ends with both decisions", async () => {
    const app = await Statek.open({ store, agents: [payer] });
    let id: string;
    try {
      id = (await app.submitJob(payer)).id;
      assert.equal((await app.runJob(id)).status, "SUSPENDED");
    } finally {
      await app.close();
    }
    const listed = await statek("approvals", "--json", "--agent", "payer", "--store", store);
    assert.equal(listed.code, 0, listed.stderr);
    const [request, ...others] = JSON.parse(listed.stdout) as Array<{ jobId: string; requestId: string; tool: string; args: unknown }>;
    assert.deepEqual(others, []);
    assert.deepEqual({ jobId: request!.jobId, tool: request!.tool, args: request!.args }, { jobId: id, tool: "pay", args: { amount: 450 } });
    const table = await statek("approvals", "--store", store);
    assert.match(table.stdout, new RegExp(`^JOB +REQUEST +ASKED +WHAT\n${id} +${request!.requestId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d +pay\\(\\{"amount":450\\}\\)$`, "m"));

    const approved = await statek("approve", id.slice(0, 8), "--note", "invoice 17", "--by", "alice", "--store", store);
    assert.equal(approved.code, 0, approved.stderr);
    // Decided without naming the request: the output says which request it was.
    const approvedLines = approved.stdout.split("\n");
    assert.equal(approvedLines[0], `approved request ${request!.requestId} of job ${id} (by alice)`);
    assert.equal(approvedLines[1], "  tool       pay");
    assert.equal(approvedLines[2], '  arguments  {"amount":450}');
    assert.match(approvedLines[3]!, /^ {2}requested {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \((\d+ (ms|s|min) ago|just now)\)$/);
    const twice = await statek("approve", id, request!.requestId, "--store", store);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /^statek: cannot approve request \S+ of job \S+: ApprovalDecidedError: .*already approved by alice/);

    const resumed = await Statek.open({ store, agents: [payer] });
    try {
      assert.equal((await resumed.runJob(id)).status, "SUSPENDED", "now requestApproval waits");
      const [next] = await resumed.pendingApprovals({ jobId: id });
      assert.equal(next!.summary, "Pay 9,000 too?");
      const denied = await statek("deny", id, "--note", "not this month", "--json", "--store", store);
      assert.equal(denied.code, 0, denied.stderr);
      assert.deepEqual(JSON.parse(denied.stdout), {
        jobId: id, requestId: next!.requestId, decision: "denied", by: userInfo().username || "cli",
        tool: "requestApproval", args: next!.args, summary: "Pay 9,000 too?", requestedAt: next!.requestedAt.toISOString(),
      });
      const done = await resumed.runJob(id);
      assert.equal(done.status, "DONE");
      assert.deepEqual(done.console, ["paid 450 (approved by alice: invoice 17)", "ApprovalDenied: not this month"]);
    } finally {
      await resumed.close();
    }
    const none = await statek("approve", id, "--store", store);
    assert.equal(none.code, 1);
    assert.equal(none.stderr, `statek: job ${id} waits for no approval request\n`);
    assert.equal((await statek("approvals", "--store", store)).stdout, "no pending approval requests\n");
  });

  it("reports bad command lines naming what was wrong", async () => {
    const badBy = await statek("approve", doneId, "--by", " ", "--store", store);
    assert.equal(badBy.code, 2);
    assert.match(badBy.stderr, /--by needs a non-empty name/);
    const badLimit = await statek("approvals", "--limit", "0", "--store", store);
    assert.equal(badLimit.code, 2);
    assert.match(badLimit.stderr, /--limit must be a whole number of at least 1 \(got '0'\)/);
    const { stdout } = await statek("deny", "--help");
    assert.ok(stdout.startsWith("Usage: statek deny <id> [request] [--note TEXT] [--by NAME] [--json] [--store STORE]\n"), stdout);
  });
});

describe("statek fork", () => {
  it("forks a job at a turn with a message and a variable; the new job runs; bad turns are refused", async () => {
    const { code, stdout, stderr } = await statek("fork", doneId.slice(0, 8), "--turn", "1", "--message", "Once more.", "--var", "tries=2", "--json", "--store", store);
    assert.equal(code, 0, stderr);
    const { id, forkedFrom } = JSON.parse(stdout) as { id: string; forkedFrom: unknown };
    assert.deepEqual(forkedFrom, { jobId: doneId, turn: 1 });
    const shown = await statek("show", id, "--store", store);
    assert.match(shown.stdout, new RegExp(`^forked +from job ${doneId}, at the end of turn 1$`, "m"));
    assert.match(shown.stdout, /Once more\./);
    const finisher = new Agent({ role: "finisher", model: scriptedModel([ts("exit(tries)")]) });
    const app = await Statek.open({ store, agents: [finisher] });
    try {
      const fork = (await app.getJob(id))!;
      assert.deepEqual(fork.forkedFrom, { jobId: doneId, turn: 1 });
      assert.deepEqual(fork.variables, { tries: 2 });
      const done = await app.runJob(id);
      assert.equal(done.status, "DONE");
      assert.equal(done.exitStatus, 2);
      assert.equal((await app.getJob(doneId))!.exitStatus, 1, "the original is as it was");
    } finally {
      await app.close();
    }
    const plain = await statek("fork", doneId, "--turn", "0", "--store", store);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^[0-9a-f-]{36}\n$/);
    const beyond = await statek("fork", doneId, "--turn", "3", "--store", store);
    assert.equal(beyond.code, 1);
    assert.equal(beyond.stderr, `statek: ForkTurnError: forkJob: job ${doneId} has 1 turn; there is no turn 3 to fork from\n`);
    const missing = await statek("fork", doneId, "--store", store);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing --turn N/);
    const negative = await statek("fork", doneId, "--turn", "-1", "--store", store);
    assert.equal(negative.code, 2);
  });
});
