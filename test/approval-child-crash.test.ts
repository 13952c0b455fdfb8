/**
 * Approvals and child jobs across `kill -9` (real processes, real SQLite files): an
 * approved call runs exactly once when its worker is killed after it ran, and a replayed cell does not start a
 * second child.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";

const fixture = join(import.meta.dirname, "fixtures/approval-child-job.ts");

/** The fixture's JSON answer to `args`. */
const call = (store: string, appDb: string, ...args: string[]) => JSON.parse(execFileSync(process.execPath, [fixture, store, appDb, ...args], { encoding: "utf8" }));

/** The tools' rows in the application's own table. */
function effects(appDb: string): string[] {
  const db = new DatabaseSync(appDb);
  try {
    return (db.prepare("SELECT tool FROM effects ORDER BY rowid").all() as Array<{ tool: string }>).map((row) => row.tool);
  } finally {
    db.close();
  }
}

/** Runs `role`'s job until tool `hang` has written its row, then kills the process with SIGKILL. */
async function killAtHang(store: string, appDb: string, role: string): Promise<void> {
  const child = spawn(process.execPath, [fixture, store, appDb, "run", role, "hang"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    let written = false;
    try {
      written = effects(appDb).includes("hang");
    } catch {
      // The table is not there yet.
    }
    if (written) break;
  }
  child.kill("SIGKILL");
  await exited;
}

describe("approvals and child jobs across kill -9", () => {
  it("an approved call runs exactly once when its worker is killed after it ran", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-approval-crash-"));
    try {
      const [store, appDb] = [join(dir, "statek.db"), join(dir, "app.db")];
      assert.equal(call(store, appDb, "submit", "payer").status, "SUSPENDED");
      assert.deepEqual(effects(appDb), [], "nothing ran before the approval");
      assert.deepEqual(call(store, appDb, "approve"), { approved: 1 }, "approved from another process");
      await killAtHang(store, appDb, "payer"); // pay ran (journaled), then the worker died in hang
      assert.deepEqual(effects(appDb), ["pay", "hang"]);
      const view = call(store, appDb, "run", "payer", "");
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "paid 500 (ops)");
      assert.deepEqual(view.console, ["start", "paid 500 (ops)", "1", "after"], "nothing printed twice");
      assert.deepEqual(effects(appDb), ["pay", "hang", "hang"], "the approved call ran once (hang, idempotent, was made again)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a cell replayed after kill -9 does not start a second child", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-child-crash-"));
    try {
      const [store, appDb] = [join(dir, "statek.db"), join(dir, "app.db")];
      call(store, appDb, "submit", "parent");
      await killAtHang(store, appDb, "parent"); // the child was started (its call journaled), then the worker died
      let view = call(store, appDb, "run", "parent", "");
      assert.equal(view.status, "SUSPENDED", "waiting for its child");
      assert.equal(view.children, 1);
      call(store, appDb, "children");
      view = call(store, appDb, "run", "parent", "");
      assert.equal(view.status, "DONE");
      assert.deepEqual(view.console, ["start", "1", "cats!"]);
      assert.equal(view.children, 1, "one child");
      assert.deepEqual(effects(appDb).filter((tool) => tool === "research"), ["research"], "the starting call was not made again");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
