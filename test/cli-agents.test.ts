/**
 * `statek agents`, run as a real child process against a real SQLite file: each agent's jobs by status, its
 * loop's last queue size, its queued events and its breaker; `--reset ROLE` closes a breaker.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
let directory: string;
let store: string;

function statek(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: directory, encoding: "utf8" }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "statek-cli-agents-"));
  store = join(directory, "jobs.db");
  const broken = new Agent({ role: "broken", eventVariable: "event", model: scriptedModel([]), warmup: "throw new Error('no setup')" });
  const fine = new Agent({ role: "fine", model: scriptedModel([]), warmup: "exit(1)" });
  const app = await Statek.open({ store, agents: [broken, fine] });
  const { id } = await app.submitJob(broken);
  assert.equal((await app.runJob(id)).status, "FAILED");
  await app.pushAgentEvent("broken", { order: 1 });
  await app.pushAgentEvent("broken", { order: 2 });
  for (let n = 0; n < 2; n++) assert.equal((await app.runJob((await app.submitJob(fine)).id)).status, "DONE");
  await app.close();
});

after(() => rmSync(directory, { recursive: true, force: true }));

describe("statek agents", () => {
  it("lists each agent's jobs by status, queued events and breaker", async () => {
    const { code, stdout, stderr } = await statek("agents", "--store", store);
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^AGENT\s+READY\s+RUNNING\s+SUSPENDED\s+DONE\s+FAILED\s+CANCELLED\s+LOOP\s+EVENTS\s+BREAKER$/);
    assert.match(lines[1]!, /^broken\s+0\s+0\s+0\s+0\s+1\s+0\s+-\s+2\s+OPEN since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d: warmup block 1 of 1 failed: Error: no setup$/);
    assert.match(lines[2]!, /^fine\s+0\s+0\s+0\s+2\s+0\s+0\s+-\s+0\s+closed$/);
    const json = JSON.parse((await statek("agents", "--json", "--store", store)).stdout);
    assert.deepEqual(json.map((agent: { role: string; state: string; queuedEvents: number }) => [agent.role, agent.state, agent.queuedEvents]), [["broken", "open", 2], ["fine", "closed", 0]]);
    assert.equal(json[0].jobs.FAILED, 1);
  });

  it("--reset ROLE closes the breaker and keeps the queued events", async () => {
    const { code, stdout, stderr } = await statek("agents", "--reset", "broken", "--store", store);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^broken: breaker closed \(2 queued events kept\)\n/);
    assert.match(stdout, /\nbroken\s+0\s+0\s+0\s+0\s+1\s+0\s+-\s+2\s+closed\n/);
  });

  it("fails clearly without a store", async () => {
    const { code, stderr } = await statek("agents", "--store", join(directory, "missing.db"));
    assert.equal(code, 1);
    assert.match(stderr, /no store at .*missing\.db/);
  });
});
