import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ThinkTagSplitter, splitOpenReasoning, type TextSegment } from "./think-tags.ts";

/** Feeds `deltas` through a splitter; returns the text and the reasoning it separated. */
function split(deltas: readonly string[]): { text: string; reasoning: string } {
  const splitter = new ThinkTagSplitter();
  const segments: TextSegment[] = [];
  for (const delta of deltas) segments.push(...splitter.push(delta));
  segments.push(...splitter.end());
  const of = (kind: TextSegment["kind"]) => segments.filter((segment) => segment.kind === kind).map((segment) => segment.text).join("");
  return { text: of("text"), reasoning: of("reasoning") };
}

describe("inline <think> reasoning", () => {
  it("separates reasoning from text wherever the deltas split the tags", () => {
    const reply = "Before <think>plan ```ts\nexit()\n```</think>After <think>more</think>.";
    for (let first = 0; first <= reply.length; first++) {
      for (let second = first; second <= reply.length; second += 7) {
        const result = split([reply.slice(0, first), reply.slice(first, second), reply.slice(second)]);
        assert.deepEqual(result, { text: "Before After .", reasoning: "plan ```ts\nexit()\n```more" }, `split at ${first}, ${second}`);
      }
    }
  });

  it("makes the rest reasoning after an unclosed <think>, and leaves other angle brackets alone", () => {
    assert.deepEqual(split(["Start <think>cut off while thin", "king"]), { text: "Start ", reasoning: "cut off while thinking" });
    assert.deepEqual(split(["a <thin", "g> b < think> c </think>"]), { text: "a <thing> b < think> c </think>", reasoning: "" });
    assert.deepEqual(split(["ends with <thi"]), { text: "ends with <thi", reasoning: "" }, "a partial tag at the end is text");
  });

  it("splits a reply that opens inside reasoning at its closing tag", () => {
    assert.deepEqual(splitOpenReasoning("plan</think>Answer"), { reasoning: "plan", text: "Answer" });
    assert.equal(splitOpenReasoning("no tags"), undefined);
  });
});
