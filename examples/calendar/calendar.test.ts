import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { POSTGRES_URL, freshSchema, postgresSkipReason, rawPostgres } from "../../test/support/postgres-server.ts";
import { startLoopbackServer } from "../../test/support/loopback-server.ts";
import { chatStream } from "../../test/support/openai-chat-stream.ts";
import { SCRIPT } from "./agent.ts";

const main = join(import.meta.dirname, "main.ts");

function runDemo(dataDir: string): string {
  return execFileSync(process.execPath, [main], { encoding: "utf8", env: { ...process.env, STATEK_DATA_DIR: dataDir } });
}

describe("the calendar demo", () => {
  it("moves the weekly planning meeting, ends DONE with exit code 0, and works again on a second run", () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-demo-"));
    try {
      const first = runDemo(dir);
      assert.match(first, /replays a scripted model/);
      assert.match(first, /── turn 1: the model wrote ──\n {4}\/\/ Let me look at today's meetings first\.\n {4}const events = calendar\.eventsFor\(today\);/);
      assert.match(first, /> \[Meeting\("Standup", \d{4}-\d\d-\d\d 09:00–09:15 UTC\),Meeting\("Weekly planning", \d{4}-\d\d-\d\d 10:00–11:00 UTC\)/);
      assert.match(first, /→ findEmptySlot\(…\) = \{start:\d{4}-\d\d-\d\dT11:00:00Z,end:\d{4}-\d\d-\d\dT12:00:00Z\}/);
      assert.match(first, /> Moved "Weekly planning" for Ada: it now starts at \d{4}-\d\d-\d\dT11:00:00\.000Z/);
      assert.match(first, /Final status: DONE\n"Weekly planning" now starts at \d{4}-\d\d-\d\dT11:00:00\.000Z\nJob id: [0-9a-f-]{36}\n/);
      assert.doesNotMatch(first, /not persisted|✗/, "every variable of the demo persists and no cell fails");
      const firstId = /Job id: ([0-9a-f-]{36})/.exec(first)![1];
      const second = runDemo(dir);
      const secondId = /Job id: ([0-9a-f-]{36})/.exec(second)![1];
      assert.notEqual(secondId, firstId, "a second run is a new job");
      assert.match(second, /Final status: DONE/);

      const show = execFileSync(process.execPath, [join(import.meta.dirname, "../../bin/statek.js"), "show", firstId!, "--store", join(dir, "statek.db")], { encoding: "utf8" });
      for (const text of ["calendar.eventsFor(today)", "findEmptySlot(calendar, meeting.endsAt", "moveMeeting(meeting, laterSlot)", "exit({ moved", "DONE"]) {
        assert.ok(show.includes(text), `statek show includes ${text}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the same job on PostgreSQL when STATEK_STORE names a server", { skip: postgresSkipReason() ?? false }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-demo-"));
    const schema = freshSchema();
    try {
      const output = execFileSync(process.execPath, [main], { encoding: "utf8", env: { ...process.env, STATEK_DATA_DIR: dir, STATEK_STORE: `${POSTGRES_URL}?schema=${schema}` } });
      assert.match(output, /durable variables and a PostgreSQL store/);
      assert.match(output, /> Moved "Weekly planning" for Ada: it now starts at \d{4}-\d\d-\d\dT11:00:00\.000Z/);
      assert.match(output, /Final status: DONE\n/);
      assert.match(output, /npx statek show [0-9a-f-]{36} --store "\$STATEK_STORE"/);
      const id = /Job id: ([0-9a-f-]{36})/.exec(output)![1];
      const client = await rawPostgres();
      try {
        const { rows } = await client.query(`SELECT status, history_length FROM "${schema}".jobs WHERE id = $1`, [id]);
        assert.equal(rows[0]?.["status"], "DONE", "the job's row is in PostgreSQL");
        assert.ok(Number(rows[0]?.["history_length"]) > 4);
      } finally {
        await client.end();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("uses a real model when STATEK_MODEL names one and its key is set (here: OpenAI's wire format on loopback)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-demo-"));
    const server = await startLoopbackServer(SCRIPT.map((content) => chatStream({ content, usage: { prompt: 1000, completion: 100, cached: 800 } })));
    try {
      const env = { ...process.env, STATEK_DATA_DIR: dir, STATEK_MODEL: "openai/gpt-5-mini", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
      const output = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [main], { encoding: "utf8", env }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
      });
      assert.match(output, /This run uses a real model: openai\/gpt-5-mini\./);
      assert.match(output, /Final status: DONE\n/);
      // gpt-5-mini: 4 turns × (200 × $0.25 + 800 × $0.025 + 100 × $2) per million tokens.
      assert.match(output, /\nUsage: 4000 input tokens \(3200 cached\), 400 output tokens, \$0\.00108\n/);
      assert.equal(server.requests.length, 4);
      assert.equal(server.requests[0]!.body.messages[1].content, "Please move my weekly planning meeting to the first free slot after it today.");
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says so and falls back to the scripted model when STATEK_MODEL is set without its key", () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-demo-"));
    try {
      const env = { ...process.env, STATEK_DATA_DIR: dir, STATEK_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "" };
      const output = execFileSync(process.execPath, [main], { encoding: "utf8", env });
      assert.match(output, /STATEK_MODEL=anthropic\/claude-sonnet-4-5 cannot be used \(MODEL 'anthropic\/claude-sonnet-4-5' needs an API key: set ANTHROPIC_API_KEY\), so the scripted model runs instead\./);
      assert.match(output, /replays a scripted model/);
      assert.match(output, /Final status: DONE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
