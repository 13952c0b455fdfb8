import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_UNTRUSTED_DEPTH, nestsWithin, parseUntrusted } from "./untrusted-json.ts";

describe("untrusted JSON", () => {
  it("measures nesting, whether the brackets are few or many, and skips those inside strings", () => {
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    assert.equal(nestsWithin(nested(3), 3), true);
    assert.equal(nestsWithin(nested(4), 3), false);
    // Many brackets side by side, or inside strings, are not deep.
    assert.equal(nestsWithin("[" + Array.from({ length: 50 }, () => "{}").join(",") + "]", 3), true);
    assert.equal(nestsWithin(JSON.stringify(["[[[[[[[[{{{{{{{", { a: "\\[[[[" }]), 3), true);
    assert.equal(nestsWithin('["\\"", ' + nested(5) + "]", 5), false, "an escaped quote does not end a string");
    assert.equal(nestsWithin(JSON.stringify({ list: Array.from({ length: 1000 }, (_, i) => i) }), 2), true);
  });

  it("refuses a long text nested past the limit before parsing it, and parses the rest", () => {
    const deep = "[".repeat(MAX_UNTRUSTED_DEPTH + 1) + " ".repeat(3000) + "]".repeat(MAX_UNTRUSTED_DEPTH + 1);
    assert.throws(() => parseUntrusted(deep), /nested deeper than 32 levels/);
    const wide = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ i, tags: ["a", "b"] })));
    assert.equal((parseUntrusted(wide) as unknown[]).length, 500);
  });
});
