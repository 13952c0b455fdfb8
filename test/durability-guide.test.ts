/** docs/durability.md: every program runs as it is and prints what the guide says. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const examples = docExamples("durability.md");

describe("docs/durability.md", () => {
  it("has programs with their output", () => {
    assert.ok(examples.every(isProgram), "every example is a program");
    assert.ok(examples.filter((example) => example.prints !== undefined).length >= 4);
  });
  testPrograms(examples);
});
