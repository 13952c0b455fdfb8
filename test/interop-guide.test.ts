/** docs/interop.md: every program runs as it is and prints what the guide says. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const examples = docExamples("interop.md");

describe("docs/interop.md", () => {
  it("has programs for MCP both ways, AI SDK tools and traces, with their output", () => {
    assert.ok(examples.every(isProgram), "every example is a program");
    assert.equal(examples.length, 5);
    assert.equal(examples.filter((example) => example.prints !== undefined).length, 4);
  });
  testPrograms(examples);
});
