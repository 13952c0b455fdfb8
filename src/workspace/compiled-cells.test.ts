import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CompiledCells, MAX_COMPILED_CHARACTERS } from "./compiled-cells.ts";

describe("CompiledCells", () => {
  it("keeps results apart by limits and by source", () => {
    const cells = new CompiledCells<string>();
    cells.remember("a", "x", "ax");
    cells.remember("b", "x", "bx");
    assert.equal(cells.recall("a", "x"), "ax");
    assert.equal(cells.recall("b", "x"), "bx");
    assert.equal(cells.recall("a", "y"), undefined);
    assert.equal(cells.recall("c", "x"), undefined);
  });

  it("holds at most MAX_COMPILED_CHARACTERS of source, forgetting the least recently used first", () => {
    const cells = new CompiledCells<number>();
    const quarter = "x".repeat(Math.floor(MAX_COMPILED_CHARACTERS / 4));
    cells.remember("l", `a${quarter}`, 1);
    cells.remember("l", `b${quarter}`, 2);
    assert.equal(cells.recall("l", `a${quarter}`), 1);
    cells.remember("l", `c${quarter}`, 3);
    cells.remember("l", `d${quarter}`, 4);
    assert.equal(cells.recall("l", `b${quarter}`), undefined);
    assert.equal(cells.recall("l", `a${quarter}`), 1);
    assert.equal(cells.size, 3);
    // A source over the whole bound is not kept at all (it would evict everything else).
    cells.remember("l", "e".repeat(MAX_COMPILED_CHARACTERS + 1), 5);
    assert.equal(cells.size, 3);
  });
});
