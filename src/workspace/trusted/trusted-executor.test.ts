import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Workspace } from "../workspace.ts";
import { runWorkspaceSuite } from "../workspace.suite.ts";
import { createTrustedExecutor } from "./trusted-executor.ts";

runWorkspaceSuite({
  name: "trusted",
  executor: createTrustedExecutor,
  skip: {
    "boundary: stack traces show no host frames": "node:vm shares the worker's isolate, so a guest stack trace runs through the host's own frames",
    "limits: the time the host takes to answer is not charged to the cell": "node:vm's timeout is wall-clock time, so the time the guest waits for the host counts against it",
    "limits: the wall-clock limit stops guest code that runs between host calls":
      "node:vm stops running code only at its own timeout (the CPU limit), so this executor ends a cell at its wall-clock limit between slices",
  },
});

describe("trusted executor", () => {
  it("says it is not an isolation boundary", () => {
    const executor = createTrustedExecutor();
    assert.equal(executor.name, "trusted");
    assert.equal(executor.isolated, false);
  });

  it("stops an endless synchronous loop at the CPU limit", async () => {
    const workspace = await Workspace.open(
      { executor: createTrustedExecutor(), limits: { cellTimeMs: 100 }, job: { id: "j", role: "r" }, tools: [], globals: {}, bindings: new Map() },
      [],
    );
    try {
      const result = await workspace.runCell("let spins = 0\nwhile (true) spins++");
      assert.equal(result.error, "TimeoutError: the cell used more than its 100 ms CPU time limit and was stopped");
      assert.deepEqual((await workspace.runCell("1 + 1")).console.map((entry) => entry.text), ["2"]);
    } finally {
      workspace.dispose();
    }
  });

  it("stops an endless chain of promise jobs at the CPU limit (the context has its own microtask queue)", async () => {
    const workspace = await Workspace.open(
      { executor: createTrustedExecutor(), limits: { cellTimeMs: 100 }, job: { id: "j", role: "r" }, tools: [], globals: {}, bindings: new Map() },
      [],
    );
    try {
      const result = await workspace.runCell("const spin = () => Promise.resolve().then(spin)\nspin()\nawait new Promise(() => {})");
      assert.equal(result.error, "TimeoutError: the cell used more than its 100 ms CPU time limit and was stopped");
      assert.deepEqual((await workspace.runCell("1 + 1")).console.map((entry) => entry.text), ["2"]);
    } finally {
      workspace.dispose();
    }
  });
});
