/**
 * A job suspended with many variables and resumed in another process after `kill -9`: the resumed cell reads
 * its variables as they were stored — plain ones restored lazily, a value two variables share still one
 * value, a class instance still its class's — and what it changed is stored, the rest kept.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const fixture = join(import.meta.dirname, "fixtures/resume-job.ts");

describe("a job resumed after kill -9", () => {
  it("restores its fifty variables, shared values and class instances, and stores what the resumed cell changed", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-resume-"));
    try {
      const store = join(dir, "statek.db");
      const child = spawn(process.execPath, [fixture, store, "suspend"], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      let out = "";
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out.trim());
        });
        child.on("exit", () => reject(new Error(`the suspending process exited early: ${out}`)));
      });
      child.kill("SIGKILL");
      await exited;
      const [status, id] = line.split(" ");
      assert.equal(status, "SUSPENDED");
      const view = JSON.parse(execFileSync(process.execPath, [fixture, store, "resume", id!], { encoding: "utf8" }));
      assert.equal(view.status, "DONE");
      assert.equal(view.exitStatus, "resumed");
      assert.deepEqual(view.console, ['go 107 v49 {"n":3,"list":[3,4],"label":"v3"} 2 11 true']);
      assert.deepEqual(view.variables.v7, { n: 107, list: [7, 8], label: "v7" });
      assert.deepEqual(view.variables.v3, { n: 3, list: [3, 4], label: "v3" });
      assert.deepEqual(view.variables.shared, { count: 2 });
      assert.equal(view.variables.holder.shared.count, 2);
      assert.equal(view.variables.count, 55, "50 plain variables, shared, holder, Counter, counter, message");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
