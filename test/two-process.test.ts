import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const child = (...args: string[]) =>
  JSON.parse(execFileSync(process.execPath, [join(import.meta.dirname, "fixtures/two-process-job.ts"), ...args], { encoding: "utf8" }));

describe("a job across two processes", () => {
  it("process B runs the next cell against the variables process A stored", () => {
    const dir = mkdtempSync(join(tmpdir(), "statek-two-process-"));
    try {
      const store = join(dir, "statek.db");
      const { id } = child("submit", store);
      const resumed = child("resume", store, id);
      assert.deepEqual(resumed.console, ["42 0 42"]);
      assert.equal(resumed.status, "STARTED");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
