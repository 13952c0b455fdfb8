/**
 * A typed cell resumed after `kill -9` is not type-checked again: it passed when it first ran, and what it did
 * then is in its journal. Here the process that resumes it declares the tool differently — a check now would
 * refuse the cell — and the cell still completes, its idempotent call made again with the same key.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";

const fixture = join(import.meta.dirname, "fixtures/typed-crash-job.ts");

/** Runs the job until `pay` has written its row, then kills the process with SIGKILL. */
async function killWhenPaid(store: string, appDb: string): Promise<void> {
  const child = spawn(process.execPath, [fixture, store, appDb, "number", "run", "hang"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const db = new DatabaseSync(appDb);
    try {
      const row = db.prepare("SELECT COUNT(*) AS n FROM effects").get() as { n: number } | undefined;
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

describe("a typed cell resumed after kill -9", () => {
  it("is not checked again, so declarations changed meanwhile do not refuse it", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-typed-crash-"));
    try {
      const [store, appDb] = [join(dir, "statek.db"), join(dir, "app.db")];
      execFileSync(process.execPath, [fixture, store, appDb, "number", "submit"]);
      await killWhenPaid(store, appDb);
      const view = JSON.parse(execFileSync(process.execPath, [fixture, store, appDb, "string", "run", ""], { encoding: "utf8" }));
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["start", "paid 1"], "printed once, the call made again");
      assert.equal(view.exitStatus, "paid 1");
      assert.deepEqual(view.typeChecks, [], "no check on the replay");
      const db = new DatabaseSync(appDb);
      const keys = (db.prepare("SELECT key FROM effects ORDER BY at").all() as Array<{ key: string }>).map((row) => row.key);
      db.close();
      assert.equal(keys.length, 2);
      assert.equal(keys[0], keys[1], "with the same idempotency key");

      // The same cell, first run under the new declaration, is refused: the replay above was spared a real refusal.
      const [freshStore, freshApp] = [join(dir, "fresh.db"), join(dir, "fresh-app.db")];
      execFileSync(process.execPath, [fixture, freshStore, freshApp, "string", "submit"]);
      const fresh = JSON.parse(execFileSync(process.execPath, [fixture, freshStore, freshApp, "string", "run", ""], { encoding: "utf8" }));
      assert.equal(fresh.typeChecks[0]?.outcome, "refused");
      assert.match(fresh.console[0], /^TypeError: line 2: Argument of type 'number' is not assignable to parameter of type 'string'\. \(TS2345\)$/);
      assert.equal(fresh.exitStatus, "refused");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
