/** docs/memory.md: every program runs as its own process and prints what the guide says. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const all = docExamples("memory.md");

describe("docs/memory.md", () => {
  it("has programs only, each with its output", () => {
    assert.ok(all.length >= 3, `${all.length} programs`);
    assert.deepEqual(all.filter((example) => !isProgram(example) || example.prints === undefined).map((example) => example.line), []);
  });

  testPrograms(all);
});
