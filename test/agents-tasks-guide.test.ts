/**
 * docs/agents-tasks.md: every program runs as its own process (`import … from "statek"` resolves to the sources)
 * and prints exactly what the guide says.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const all = docExamples("agents-tasks.md");

describe("docs/agents-tasks.md", () => {
  it("has its programs, each with its output", () => {
    const programs = all.filter(isProgram);
    assert.ok(programs.length >= 2, `${programs.length} programs`);
    assert.ok(programs.every((example) => example.prints !== undefined));
  });

  testPrograms(all);
});
