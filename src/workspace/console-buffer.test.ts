import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConsoleBuffer } from "./console-buffer.ts";

const size = (entries: Array<{ text: string }>) => entries.reduce((total, entry) => total + entry.text.length, 0);

describe("ConsoleBuffer", () => {
  it("cuts output at the budget and says how much was cut", () => {
    const buffer = new ConsoleBuffer(100);
    buffer.push("out", "a".repeat(80));
    buffer.push("out", "b".repeat(50));
    assert.deepEqual(buffer.finish().map((entry) => entry.text), ["a".repeat(80), "b".repeat(20), "[… 30 characters truncated]"]);
  });

  it("counts notices against the budget: a flood of them stays within it plus the notice reserve", () => {
    const buffer = new ConsoleBuffer(50_000);
    for (let i = 0; i < 20_003; i++) buffer.push("notice", `x${i} was not persisted: a function that is not a top-level declaration`);
    const entries = buffer.finish();
    const marker = entries.at(-1)!;
    assert.match(marker.text, /^\[… [\d,]+ characters truncated; [\d,]+ notices were dropped\]$/);
    assert.ok(size(entries.slice(0, -1)) <= 55_000, `${size(entries)} characters kept`);
  });

  it("keeps notices after the output spent the budget, up to a reserve, and the error always", () => {
    const buffer = new ConsoleBuffer(1_000);
    buffer.push("out", "o".repeat(5_000));
    buffer.push("notice", "x was not persisted: a Symbol");
    buffer.push("notice", "n".repeat(500));
    buffer.push("error", "TypeError: boom");
    const entries = buffer.finish();
    assert.deepEqual(entries.map((entry) => entry.stream), ["out", "notice", "notice", "error", "notice"]);
    assert.equal(entries[1]!.text, "x was not persisted: a Symbol");
    assert.equal(entries[2]!.text.length, 100 - "x was not persisted: a Symbol".length);
    assert.equal(entries[3]!.text, "TypeError: boom");
    assert.match(entries[4]!.text, /^\[… 4,\d{3} characters truncated\]$/);
  });
});
