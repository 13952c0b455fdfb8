/**
 * The differential test of typed cells: every cell the test suites, examples and documented programs ran — as
 * each job's checker saw it, with its declarations, its variables and its earlier cells (recorded by
 * `scripts/collect-typed-cells.ts` into `fixtures/typed-cells.json`) — is checked again here. Under the default,
 * `typeCheck: "refuse"`, each must run as it does under `"off"`: not one is refused. A cell a test means to be
 * ill-typed says so with `@ts-expect-error`, or its job sets `typeCheck`; the type checker's own tests are not in
 * the corpus.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { TypedCellCorpus } from "../scripts/collect-typed-cells.ts";
import { CellProgram } from "../src/typecheck/cell-program.ts";
import { formatTypeErrors } from "../src/typecheck/format-type-errors.ts";

const corpus = JSON.parse(readFileSync(new URL("fixtures/typed-cells.json", import.meta.url), "utf8")) as TypedCellCorpus;
const text = (index: number) => corpus.texts[index]!;

describe("the corpus of cells from the test suites", () => {
  it("is the suites' cells: hundreds, from many files", () => {
    assert.equal(corpus.version, 1);
    assert.ok(corpus.entries.length >= 250, `${corpus.entries.length} cells`);
    assert.ok(new Set(corpus.entries.map((entry) => entry.source)).size >= 30);
  });

  it("runs under refuse as under off: no cell is refused", { timeout: 600_000 }, () => {
    const program = new CellProgram();
    const refused: string[] = [];
    for (const entry of corpus.entries) {
      const output = program.check({ declarations: text(entry.declarations), cells: entry.cells.map(text), variables: entry.variables, cell: text(entry.cell) });
      if (output.errors.length) refused.push(`${entry.source}: ${text(entry.cell).split("\n")[0]}\n${formatTypeErrors(output.errors)}`);
      else assert.equal(output.unchecked, undefined, `${entry.source}: a cell left unchecked: ${output.unchecked}`);
    }
    assert.deepEqual(refused, []);
  });
});
