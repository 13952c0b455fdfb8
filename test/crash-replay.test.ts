/**
 * A cell resumed after `kill -9`: a recorded result is never asked for again, an
 * idempotent call in doubt is made again with the same idempotency key, another call in doubt reads
 * `InDoubtError` in the cell, nothing the cell printed before is printed twice, and the job's history records every
 * call once (the one in doubt saying so).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";

const fixture = join(import.meta.dirname, "fixtures/crash-job.ts");

/** Runs the job until tool `hang` has written its row, then kills the process with SIGKILL. */
async function killWhenWritten(store: string, appDb: string, hang: string): Promise<void> {
  const child = spawn(process.execPath, [fixture, store, appDb, "run", hang], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const db = new DatabaseSync(appDb);
    try {
      const row = db.prepare("SELECT COUNT(*) AS n FROM effects WHERE tool = ?").get(hang) as { n: number } | undefined;
      if (row && row.n > 0) break;
    } catch {
      // The table is not there yet.
    } finally {
      db.close();
    }
  }
  child.kill("SIGKILL");
  await exited;
}

describe("a cell resumed after kill -9", () => {
  it("makes an idempotent call in doubt again with the same key, shows InDoubtError for another, prints nothing twice", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-crash-"));
    try {
      const [store, appDb] = [join(dir, "statek.db"), join(dir, "app.db")];
      execFileSync(process.execPath, [fixture, store, appDb, "submit"]);
      await killWhenWritten(store, appDb, "pay"); // pay started, never finished: in doubt
      await killWhenWritten(store, appDb, "note"); // pay made again (idempotent), note started: in doubt
      const view = JSON.parse(execFileSync(process.execPath, [fixture, store, appDb, "run", ""], { encoding: "utf8" }));
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, [
        "start",
        "paid 1",
        "InDoubtError: note(…) was started but its worker stopped before it finished; it may or may not have taken effect",
        "done undefined",
      ]);
      const db = new DatabaseSync(appDb);
      const effects = db.prepare("SELECT tool, key FROM effects ORDER BY at").all() as Array<{ tool: string; key: string }>;
      db.close();
      assert.deepEqual(effects.map((row) => row.tool), ["pay", "pay", "note"], "pay made twice (idempotent), note once");
      assert.equal(effects[0]!.key, effects[1]!.key, "with the same idempotency key");
      // The history records every call once: pay's result (delivered in the run that was killed later), and the
      // note in doubt, saying so.
      assert.deepEqual(view.calls, [
        { name: "pay", args: "{n:1}", result: "1" },
        { name: "note", args: "{n:2}", error: "InDoubtError: note(…) was started but its worker stopped before it finished; it may or may not have taken effect" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("two processes stepping one job at once", () => {
  it("run its tools once: the process that does not hold the job's lease writes nothing", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-two-steppers-"));
    try {
      const [store, appDb] = [join(dir, "statek.db"), join(dir, "app.db")];
      execFileSync(process.execPath, [fixture, store, appDb, "submit"]);
      const run = () =>
        new Promise<{ status: string; console: string[] }>((resolve, reject) => {
          const child = spawn(process.execPath, [fixture, store, appDb, "run", ""], { stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          let err = "";
          child.stdout.on("data", (chunk) => (out += chunk));
          child.stderr.on("data", (chunk) => (err += chunk));
          child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
        });
      const [a, b] = await Promise.all([run(), run()]);
      assert.equal(a.status, "DONE");
      assert.equal(b.status, "DONE");
      assert.deepEqual(a.console, b.console, "both read the one record");
      const db = new DatabaseSync(appDb);
      const effects = db.prepare("SELECT tool FROM effects").all() as Array<{ tool: string }>;
      db.close();
      assert.deepEqual(effects.map((row) => row.tool).sort(), ["note", "pay"], "each tool ran once");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
