/**
 * `statek worker` stops for good on SIGTERM, as a real process with real signals: after its grace period it
 * aborts the steps still running (a tool sees its `ctx.signal` abort), releases their leases and exits — even
 * when a tool ignores its signal and holds the event loop with a timer of its own. The jobs are left to the
 * next worker, not failed.
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
const AGENTS = fileURLToPath(new URL("fixtures/stop-agents.ts", import.meta.url));

let directory: string;

before(() => {
  directory = mkdtempSync(join(tmpdir(), "statek-worker-stop-"));
});

after(() => rmSync(directory, { recursive: true, force: true }));

function submit(store: string, role: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, "submit", role, "--agents", AGENTS, "--store", store], { encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

/** Starts `statek worker`; `printed(text)` resolves once its output holds text. */
function startWorker(store: string, ...args: string[]) {
  const child = spawn(process.execPath, [BIN, "worker", "--agents", AGENTS, "--store", store, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const hear = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of [...waiters]) if (output.includes(waiter.text)) waiter.resolve();
  };
  child.stdout.on("data", hear);
  child.stderr.on("data", hear);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    output: () => output,
    printed: (text: string) => new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(({ code }) => reject(new Error(`the worker exited (${code}) before printing ${JSON.stringify(text)}:\n${output}`)));
    }),
  };
}

async function leaseAndStatus(store: string, id: string) {
  const app = await Statek.open({ store });
  try {
    return { lease: await app.store.getLease(id), status: (await app.getJob(id))!.status };
  } finally {
    await app.close();
  }
}

describe("statek worker: a stop that ends", () => {
  for (const [role, how] of [["polite", "aborts a tool through its AbortSignal"], ["stubborn", "exits even when a tool ignores its signal and holds a timer"]] as const) {
    it(`after the grace period ${how}, releases the lease and exits 0`, { timeout: 120_000 }, async () => {
      const store = join(directory, `${role}.db`);
      const id = await submit(store, role);
      const worker = startWorker(store, "--grace-ms", "300");
      try {
        await worker.printed(`tool ${role === "polite" ? "listening" : "deaf"}: started for ${id}`);
        worker.child.kill("SIGTERM");
        const { code, signal } = await worker.exited;
        assert.equal(signal, null, worker.output());
        assert.equal(code, 0, worker.output());
        assert.match(worker.output(), /SIGTERM: stopping \(running steps have 300 ms to finish/);
        assert.match(worker.output(), /worker: stopped/);
        if (role === "polite") assert.match(worker.output(), /tool listening: aborted \(Error: the worker is stopping\)/);
        else assert.match(worker.output(), /worker: exiting; an aborted tool call still held the process \(it ignores its AbortSignal\)/);
        const after = await leaseAndStatus(store, id);
        assert.equal(after.lease, null, "the lease was released");
        assert.notEqual(after.status, "FAILED", "a stopped worker's job is left for the next worker, not failed");
      } finally {
        worker.child.kill("SIGKILL");
      }
    });
  }
});
