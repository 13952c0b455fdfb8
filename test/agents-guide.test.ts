/**
 * docs/agents.md: every program runs as its own process and prints exactly what the guide says (loops, events,
 * breakers, sub-tasks, checked futures, forks).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const all = docExamples("agents.md");

describe("docs/agents.md", () => {
  it("has a program with its output for loops, events, breakers, sub-tasks, checked futures and forks", () => {
    assert.ok(all.filter((example) => isProgram(example) && example.prints !== undefined).length >= 6);
  });
  testPrograms(all);
});
