import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { openStore, type JobRow } from "../src/store/index.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const ts = (code: string) => "```ts\n" + code + "\n```";

let directory: string;
let store: string;
let doneId: string;
let failedId: string;

/** Runs the CLI as a real child process. */
function statek(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return statekWith({}, ...args);
}

/** `statek` with more environment variables. */
function statekWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: directory, encoding: "utf8", env: { ...process.env, ...env } }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({ after: z.string().describe("Earliest start."), durationMinutes: z.number().default(30).describe("Length.") }),
  run: ({ after, durationMinutes }) => ({ start: after, minutes: durationMinutes }),
});

const moveMeeting = tool({
  name: "moveMeeting",
  description: "Move a meeting.",
  params: z.object({ title: z.string().describe("The meeting's title.") }),
  run: ({ title }) => {
    throw new Error(`meeting '${title}' is locked`);
  },
});

const calendarAgent = new Agent({
  role: "calendar_assistant",
  tools: [findEmptySlot, moveMeeting],
  model: scriptedModel([
    "Let me look.\n" + ts("const slot = findEmptySlot({ after: '2025-01-06T10:00', durationMinutes: 45 });\nconsole.log(slot);\nlet scratch = 1;"),
    ts("try { moveMeeting('standup') } catch (e) { console.log('caught', String(e)) }\nconsole.error('careful');\nconsole.log(Array.from({ length: 60 }, (_, i) => 'line ' + i).join('\\n'));\nfor (let i = 0; i < 100; i++) console.log('entry ' + i);"),
    { text: "", toolCalls: [{ name: "findEmptySlot", args: { after: "2025-01-07" } }] },
    ts("throw new Error('boom')"),
    ts("exit({ booked: slot })"),
  ]),
});

const shortAgent = new Agent({ role: "short_script", model: scriptedModel([ts("console.log('hello')")]) });

/** A job row inserted through the store, for ids the test chooses. */
function craftedJob(id: string): JobRow {
  return {
    id, role: "crafted", status: "READY", params: {}, metadata: {}, parentId: null, createdAt: 1_000, updatedAt: 1_000,
    version: 0, turns: 0, pendingSeq: null, historyLength: 1, exitStatus: null, error: null, usage: {}, state: {}, wakeAt: null, cell: 0,
  };
}

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "statek-cli-"));
  store = join(directory, "jobs.db");
  const app = await Statek.open({ store, agents: [calendarAgent, shortAgent] });
  doneId = (await app.submitJob(calendarAgent, { vars: { today: "2025-01-06" }, message: "Book 45 minutes on Monday" })).id;
  assert.equal((await app.runJob(doneId)).status, "DONE");
  failedId = (await app.submitJob(shortAgent, { message: "say hello" })).id;
  assert.equal((await app.runJob(failedId)).status, "FAILED");
  await app.close();
});

after(() => rmSync(directory, { recursive: true, force: true }));

describe("statek jobs", () => {
  it("lists every job, newest first, with its status, turns and error", async () => {
    const { code, stdout, stderr } = await statek("jobs", "--store", store);
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^ID\s+ROLE\s+STATUS\s+TURNS\s+UPDATED\s+ERROR$/);
    assert.equal(lines.length, 3);
    assert.match(lines[1]!, new RegExp(`^${failedId}\\s+short_script\\s+FAILED\\s+1\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d\\s+model call failed: ScriptExhaustedError`));
    assert.match(lines[2]!, new RegExp(`^${doneId}\\s+calendar_assistant\\s+DONE\\s+5\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d$`));
    assert.ok(lines[1]!.length < 200, "the error is truncated");
  });

  it("shows times in the local time zone, with its offset", async () => {
    const { stdout } = await statekWith({ TZ: "Asia/Kolkata" }, "jobs", "--store", store);
    assert.match(stdout.split("\n")[1]!, /\s\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30\s/);
  });

  it("filters by status and role, and says when nothing matches", async () => {
    const done = await statek("jobs", "--status", "DONE", "--store", store);
    assert.equal(done.code, 0);
    assert.ok(done.stdout.includes(doneId) && !done.stdout.includes(failedId));
    const both = await statek("jobs", "--status=done,failed", "--store", store);
    assert.ok(both.stdout.includes(doneId) && both.stdout.includes(failedId));
    const role = await statek("jobs", "--role", "short_script", "--store", store);
    assert.ok(role.stdout.includes(failedId) && !role.stdout.includes(doneId));
    const none = await statek("jobs", "--status", "SUSPENDED", "--store", store);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, "no jobs with status SUSPENDED\n");
  });

  it("limits the list and says it was cut", async () => {
    const { stdout } = await statek("jobs", "--limit", "1", "--store", store);
    assert.ok(stdout.includes(failedId) && !stdout.includes(doneId));
    assert.match(stdout, /the newest 1 shown; --limit N shows more/);
  });

  it("rejects an unknown status or a bad limit with exit code 2", async () => {
    const status = await statek("jobs", "--status", "FINISHED", "--store", store);
    assert.equal(status.code, 2);
    assert.match(status.stderr, /unknown status 'FINISHED' for --status \(expected one of READY, WARMING_UP, STARTED, SUSPENDED, DONE, FAILED, CANCELLED\)/);
    assert.match(status.stderr, /statek jobs --help/);
    const limit = await statek("jobs", "--limit", "ten", "--store", store);
    assert.equal(limit.code, 2);
    assert.match(limit.stderr, /--limit must be a whole number/);
  });

  it("prints the summaries as JSON", async () => {
    const { code, stdout } = await statek("jobs", "--json", "--store", store);
    assert.equal(code, 0);
    const summaries = JSON.parse(stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(summaries.map((summary) => [summary.id, summary.status, summary.turns]), [[failedId, "FAILED", 1], [doneId, "DONE", 5]]);
    assert.match(String(summaries[0]!.error), /^model call failed: ScriptExhaustedError: /);
  });
});

describe("statek show", () => {
  it("shows the header and every step: code, tool calls, console, errors, variables, status", async () => {
    const { code, stdout: shown, stderr } = await statek("show", doneId, "--store", store);
    assert.equal(code, 0, stderr);
    // Each turn's rule carries its usage; the layout checks below read the rules without it.
    assert.equal(shown.match(/^── turn \d+ · model \(scripted\/scripted-model\) · [\d,]+ in · [\d,]+ out ──$/gm)?.length, 5);
    const stdout = shown.replace(/^(── turn \d+ · model \([^)]*\)) · [^\n]* ──$/gm, "$1 ──");
    for (const expected of [
      `job       ${doneId}`,
      "role      calendar_assistant",
      "status    DONE",
      "turns     5",
      "exit      {booked:{start:\"2025-01-06T10:00\",minutes:45}}",
      "vars      today, slot, scratch",
      "── user ──\n    Book 45 minutes on Monday",
      "── turn 1 · model (scripted/scripted-model) ──\n    // Let me look.\n    const slot = findEmptySlot({ after: '2025-01-06T10:00', durationMinutes: 45 });",
      '  → findEmptySlot({after:"2025-01-06T10:00",durationMinutes:45}) = {start:"2025-01-06T10:00",minutes:45}',
      '  > {start:"2025-01-06T10:00",minutes:45}',
      "  vars: +slot +scratch",
      "── turn 2 · model (scripted/scripted-model) ──",
      `  ✗ moveMeeting({title:"standup"}) threw Error: meeting 'standup' is locked`,
      "  > caught Error: meeting 'standup' is locked",
      "  ! careful",
      "  ⇢ findEmptySlot({after:\"2025-01-07\"}) [call-2-0]",
      '  → findEmptySlot({after:"2025-01-07",durationMinutes:30}) [formal call-2-0] = {start:"2025-01-07",minutes:30}',
      "── turn 4 · model (scripted/scripted-model) ──\n    throw new Error('boom')\n  ✗ Error: boom",
      "── turn 5 · model (scripted/scripted-model) ──\n    exit({ booked: slot })",
      "── status DONE ──\n  exit {booked:{start:\"2025-01-06T10:00\",minutes:45}}",
    ]) {
      assert.ok(stdout.includes(expected), `missing:\n${expected}\n--- in ---\n${stdout}`);
    }
    assert.match(stdout, /^usage     [\d,]+ input \(0 cached\) · [\d,]+ output tokens$/m);
    assert.ok(stdout.indexOf("── turn 1") < stdout.indexOf("── turn 2") && stdout.indexOf("── turn 4") < stdout.indexOf("── status DONE"));
  });

  it("cuts long console output with a marker, and --full shows all of it", async () => {
    const cut = (await statek("show", doneId, "--store", store)).stdout;
    assert.ok(cut.includes("  > line 19\n  > … 40 more lines (--full shows all)\n"), cut);
    assert.ok(!cut.includes("line 20"));
    assert.ok(cut.includes("  > entry 36\n  … 63 more console entries (--full shows all)\n"), "a flood of entries is cut too");
    assert.ok(cut.includes("  ✗ Error: boom"), "errors are never cut");
    const full = (await statek("show", doneId, "--full", "--store", store)).stdout;
    assert.ok(full.includes("  > line 59") && full.includes("  > entry 99") && !full.includes("--full shows all"));
  });

  it("shows a failed job's error in the header and as its final status", async () => {
    const { code, stdout: shown } = await statek("show", failedId, "--store", store);
    const stdout = shown.replace(/^(── turn \d+ · model \([^)]*\)) · [^\n]* ──$/gm, "$1 ──");
    assert.equal(code, 0);
    assert.match(stdout, /^status    FAILED$/m);
    assert.match(stdout, /^error     ✗ model call failed: ScriptExhaustedError: scriptedModel: the script has 1 turn and a 2nd request was made by job [0-9a-f-]+; add turns to the script \(each job replays it from its first turn\), or use a real model \(scripted\/scripted-model\)$/m);
    assert.match(stdout, /── turn 1 · model \(scripted\/scripted-model\) ──\n {4}console\.log\('hello'\)\n {2}> hello\n/);
    assert.match(stdout, /── status FAILED ──\n {2}✗ model call failed: ScriptExhaustedError: [^\n]+\n$/);
  });

  it("shows usage and cost per turn and for the job when the model has a price", async () => {
    const pricedStore = join(directory, "priced.db");
    const model = scriptedModel([
      { text: ts("print('hi')"), usage: { inputTokens: 12_000, cachedInputTokens: 10_000, outputTokens: 300 } },
      { text: ts("exit()"), usage: { inputTokens: 13_000, cachedInputTokens: 12_000, outputTokens: 50 } },
    ], { provider: "openai.chat", modelId: "gpt-5-mini" });
    const agent = new Agent({ role: "priced", model });
    const app = await Statek.open({ store: pricedStore, agents: [agent] });
    const id = (await app.submitJob(agent)).id;
    assert.equal((await app.runJob(id)).status, "DONE");
    await app.close();
    const { code, stdout } = await statek("show", id, "--store", pricedStore);
    assert.equal(code, 0);
    // gpt-5-mini: $0.25 input, $0.025 cached, $2 output per million tokens.
    assert.match(stdout, /^usage     25,000 input \(22,000 cached\) · 350 output tokens · \$0\.002$/m);
    assert.ok(stdout.includes("── turn 1 · model (openai.chat/gpt-5-mini) · 12,000 in (10,000 cached) · 300 out · $0.00135 ──"), stdout);
    assert.ok(stdout.includes("── turn 2 · model (openai.chat/gpt-5-mini) · 13,000 in (12,000 cached) · 50 out · $0.00065 ──"), stdout);
  });

  it("accepts a unique id prefix of at least 8 characters", async () => {
    const { code, stdout } = await statek("show", doneId.slice(0, 8), "--store", store);
    assert.equal(code, 0);
    assert.ok(stdout.startsWith(`job       ${doneId}\n`));
    const short = await statek("show", doneId.slice(0, 7), "--store", store);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /no job \w{7} \(an id prefix needs at least 8 characters\)/);
  });

  it("fails with exit code 1 for an unknown id", async () => {
    const { code, stdout, stderr } = await statek("show", "00000000-0000-0000-0000-000000000000", "--store", store);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.equal(stderr, "statek: no job 00000000-0000-0000-0000-000000000000\n");
  });

  it("prints the stored rows as JSON", async () => {
    const { code, stdout } = await statek("show", doneId, "--json", "--store", store);
    assert.equal(code, 0);
    const shown = JSON.parse(stdout) as { job: JobRow; history: Array<{ seq: number; kind: string }>; variables: string[] };
    assert.equal(shown.job.id, doneId);
    assert.equal(shown.job.status, "DONE");
    assert.deepEqual(shown.variables, ["today", "slot", "scratch"]);
    assert.deepEqual(shown.history.map((record) => record.seq), shown.history.map((_, index) => index));
    assert.equal(shown.history.filter((record) => record.kind === "model-response").length, 5);
  });
});

describe("statek show on crafted rows", () => {
  const first = "abcdef12-0000-4000-8000-000000000001";
  const second = "abcdef12-0000-4000-8000-000000000002";
  let craftedStore: string;

  before(async () => {
    craftedStore = join(directory, "crafted.db");
    const opened = await openStore(craftedStore);
    for (const id of [first, second]) {
      await opened.insertJob(craftedJob(id), [], [{ seq: 0, kind: "submitted", at: 1_000, data: { vars: [], params: {} } }]);
    }
    await opened.close();
    const database = new DatabaseSync(craftedStore);
    database.prepare("UPDATE jobs SET usage = ? WHERE id = ?").run("{not json", second);
    database.prepare("UPDATE job_history SET data = ? WHERE job_id = ?").run("[broken", second);
    database.close();
  });

  it("refuses an ambiguous prefix and names the candidates", async () => {
    const { code, stderr } = await statek("show", "abcdef12", "--store", craftedStore);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`job id prefix abcdef12 is ambiguous: 2 jobs match \\((${first}|${second}), (${first}|${second})\\)`));
    const upper = await statek("show", "ABCDEF12", "--store", craftedStore);
    assert.match(upper.stderr, /job id prefix ABCDEF12 is ambiguous: 2 jobs match/, "an upper-case prefix finds the generated (lower-case) ids");
  });

  it("shows what it can of a corrupt job, and the corruption", async () => {
    const listed = await statek("jobs", "--store", craftedStore);
    assert.equal(listed.code, 0);
    assert.ok(listed.stdout.includes(first) && listed.stdout.includes(second));
    const { code, stdout } = await statek("show", second, "--store", craftedStore);
    assert.equal(code, 0);
    assert.match(stdout, /^usage {5}✗ CorruptRecordError: /m);
    assert.match(stdout, /── history\[0\] submitted ──\n {2}✗ cannot show this record: CorruptRecordError: /);
    const json = JSON.parse((await statek("show", second, "--json", "--store", craftedStore)).stdout) as { job: Record<string, unknown> };
    assert.match(String((json.job.usage as { $corrupt: string }).$corrupt), /^CorruptRecordError: /);
  });
});

describe("usage and stores", () => {
  it("prints help at the top level and for every command", async () => {
    const overviews = await Promise.all([["--help"], ["-h"], ["help"]].map((args) => statek(...args)));
    for (const { code, stdout } of overviews) {
      assert.equal(code, 0);
      assert.match(stdout, /^Usage: statek <command> \[options\]/);
      assert.match(stdout, /jobs +List jobs, newest first\./);
      assert.match(stdout, /show +Show one job/);
      assert.match(stdout, /worker +Run the store's jobs as a service\./);
    }
    const synopses = {
      jobs: "statek jobs [--status S] [--agent R] [--role R] [--limit N] [--json] [--store STORE]",
      worker: "statek worker [--agents MODULE] [--store STORE] [--concurrency N] [--lease-ms MS] [--grace-ms MS]",
      submit: "statek submit <role> [--agents MODULE] [--var NAME=JSON …] [--param NAME=JSON …] [--message TEXT] [--store STORE] [--json]",
      push: "statek push <id> <message> [--store STORE]",
      show: "statek show <id> [--full] [--json] [--store STORE]",
      help: "statek help [command]",
    };
    await Promise.all(Object.entries(synopses).flatMap(([name, synopsis]) =>
      [[name, "--help"], [name, "-h"], ["help", name]].map(async (args) => {
        const { code, stdout } = await statek(...args);
        assert.equal(code, 0, args.join(" "));
        assert.ok(stdout.startsWith(`Usage: ${synopsis}\n`), stdout);
        assert.match(stdout, /\nOptions:\n/);
        assert.match(stdout, new RegExp(`\\nExamples:\\n  statek ${name}`));
      })));
    assert.equal((await statek("show", "--help")).code, 0, "--help needs no id");
  });

  it("rejects unknown commands, unknown options and missing arguments with exit code 2", async () => {
    const [unknown, option, missing, value, extra, none, helpFor] = await Promise.all([
      statek("jbos"),
      statek("jobs", "--colour"),
      statek("show", "--store", store),
      statek("jobs", "--store"),
      statek("show", doneId, "again", "--store", store),
      statek(),
      statek("help", "nope"),
    ]);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, "statek: unknown command 'jbos'; did you mean 'statek jobs'? (commands: worker, submit, push, jobs, show, approvals, approve, deny, cancel, retry, fork, agents, ui, mcp, help)\nRun 'statek --help' for usage.\n");
    assert.equal(option.code, 2);
    assert.equal(option.stderr, "statek: unknown option '--colour' for 'statek jobs'\nRun 'statek jobs --help' for usage.\n");
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^statek: missing <id>\nRun 'statek show --help' for usage\.\n$/);
    assert.equal(value.code, 2);
    assert.match(value.stderr, /option '--store' needs a value/);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /unexpected argument 'again'/);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^Usage: statek <command>/);
    assert.equal(helpFor.code, 2);
    assert.match(helpFor.stderr, /unknown command 'nope'/);
  });

  it("fails with exit code 1 for a missing store, and creates nothing", async () => {
    const missing = join(directory, "nowhere", "statek.db");
    const { code, stdout, stderr } = await statek("jobs", "--store", missing);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.equal(stderr, `statek: no store at ${missing} (run a job first, or pass --store or set STATEK_STORE)\n`);
    assert.equal(existsSync(join(directory, "nowhere")), false);
    const byDefault = await statek("show", doneId);
    assert.equal(byDefault.code, 1);
    assert.equal(byDefault.stderr, "statek: no store at ./statek-data/statek.db (run a job first, or pass --store or set STATEK_STORE)\n");
    assert.equal(existsSync(join(directory, "statek-data")), false);
  });
});
