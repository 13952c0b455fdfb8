/**
 * `statek worker`, `statek submit`, `statek push` and `statek jobs --agent` end to end, as real processes
 *: a job submitted from one process is run by the worker process, waits for a message, and finishes
 * when another process pushes it; SIGTERM stops the worker gracefully, and a second signal exits at once.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Statek } from "../src/index.ts";

const BIN = fileURLToPath(new URL("../bin/statek.js", import.meta.url));
const AGENTS = fileURLToPath(new URL("fixtures/worker-agents.ts", import.meta.url));

let directory: string;
let store: string;

function statek(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: directory, encoding: "utf8" }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

/** Starts `statek worker`; `output()` is what it printed so far, `printed(text)` resolves once it printed text. */
function startWorker(...args: string[]) {
  const child = spawn(process.execPath, [BIN, "worker", "--agents", AGENTS, "--store", store, ...args], { cwd: directory, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const hear = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of [...waiters]) if (output.includes(waiter.text)) waiter.resolve();
  };
  child.stdout.on("data", hear);
  child.stderr.on("data", hear);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output,
    printed: (text: string) => new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then((code) => reject(new Error(`the worker exited (${code}) before printing ${JSON.stringify(text)}:\n${output}`)));
    }),
  };
}

before(() => {
  directory = mkdtempSync(join(tmpdir(), "statek-worker-cli-"));
  store = join(directory, "statek.db");
});

after(() => rmSync(directory, { recursive: true, force: true }));

describe("statek worker, submit, push", () => {
  it("a job submitted from one process runs in the worker process, waits for a message pushed from a third, and finishes", { timeout: 180_000 }, async () => {
    const worker = startWorker("--concurrency", "4");
    try {
      await worker.printed("worker: running jobs of listener, stuck");
      const submitted = await statek("submit", "listener", "--agents", AGENTS, "--store", store, "--var", 'greeting="hello"');
      assert.equal(submitted.code, 0, submitted.stderr);
      const id = submitted.stdout.trim();
      assert.match(id, /^[0-9a-f-]{36}$/);
      for (let tries = 0; ; tries++) {
        const listed = await statek("jobs", "--store", store, "--status", "SUSPENDED", "--agent", "listener", "--json");
        if ((JSON.parse(listed.stdout) as Array<{ id: string }>).some((job) => job.id === id)) break;
        assert.ok(tries < 300, "the worker runs the job until it waits for a message");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const pushed = await statek("push", id.slice(0, 8), "world", "--store", store);
      assert.equal(pushed.code, 0, pushed.stderr);
      await worker.printed(`job ${id} DONE`);
      worker.child.kill("SIGTERM");
      assert.equal(await worker.exited, 0, worker.output());
      assert.match(worker.output(), /SIGTERM: stopping/);
      assert.match(worker.output(), /worker: stopped \(running 0 · suspended 0 · done 1 · failed 0/);
      const app = await Statek.open({ store });
      try {
        assert.equal((await app.getJob(id))!.exitStatus, "hello world");
      } finally {
        await app.close();
      }
    } finally {
      worker.child.kill("SIGKILL");
    }
  });

  it("a second signal exits at once, with a step still running", { timeout: 180_000 }, async () => {
    const submitted = await statek("submit", "stuck", "--agents", AGENTS, "--store", store);
    assert.equal(submitted.code, 0, submitted.stderr);
    const worker = startWorker("--grace-ms", "600000");
    try {
      await worker.printed("worker: running jobs");
      const app = await Statek.open({ store });
      try {
        const id = submitted.stdout.trim();
        for (let tries = 0; !(await app.store.getLease(id)); tries++) {
          assert.ok(tries < 300, "the worker claims the job");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await app.close();
      }
      worker.child.kill("SIGINT");
      await worker.printed("SIGINT: stopping");
      worker.child.kill("SIGINT");
      assert.equal(await worker.exited, 130, worker.output());
      assert.match(worker.output(), /SIGINT again: exiting now/);
    } finally {
      worker.child.kill("SIGKILL");
    }
  });

  it("reports bad command lines naming what was wrong", async () => {
    const noAgents = await statek("worker", "--store", store);
    assert.equal(noAgents.code, 2);
    assert.match(noAgents.stderr, /missing --agents MODULE/);
    const badVar = await statek("submit", "listener", "--agents", AGENTS, "--store", store, "--var", "greeting=hello");
    assert.equal(badVar.code, 2);
    assert.match(badVar.stderr, /--var greeting: "hello" is not JSON \(a string needs quotes/);
    const noRole = await statek("submit", "nobody", "--agents", AGENTS, "--store", store);
    assert.equal(noRole.code, 1);
    assert.match(noRole.stderr, /no agent with role 'nobody'.*roles: listener, stuck/);
    const badConcurrency = await statek("worker", "--agents", AGENTS, "--concurrency", "0");
    assert.equal(badConcurrency.code, 2);
    assert.match(badConcurrency.stderr, /--concurrency must be a whole number of at least 1 \(got '0'\)/);
  });
});
