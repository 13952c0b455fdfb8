import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { nodeVersionProblem } from "./check-node-version.ts";

describe("the Node.js version check", () => {
  it("refuses a Node older than 22.13 with the message the statek command prints", () => {
    assert.equal(nodeVersionProblem("20.20.2"), "statek: needs Node.js 22.13 or newer (this is v20.20.2)");
    assert.equal(nodeVersionProblem("22.12.0"), "statek: needs Node.js 22.13 or newer (this is v22.12.0)");
    assert.equal(nodeVersionProblem("22.13.0"), undefined);
    assert.equal(nodeVersionProblem("24.1.0"), undefined);
    const bin = fileURLToPath(new URL("../../bin/statek.js", import.meta.url));
    assert.ok(readFileSync(bin, "utf8").includes("statek: needs Node.js 22.13 or newer (this is ${process.version})"), "the command says the same");
  });
});
