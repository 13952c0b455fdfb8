import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeHistoryRow } from "../../jobs/history/history-codec.ts";
import type { HistoryRow } from "../../store/store.ts";
import { timeline } from "./timeline.ts";

/** A job's history of `turns` model turns, each with its console output. */
function history(turns: number): HistoryRow[] {
  const rows: HistoryRow[] = [encodeHistoryRow(0, "submitted", 0, { vars: [], params: {} })];
  for (let turn = 1; turn <= turns; turn++) {
    const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 4 };
    rows.push(encodeHistoryRow(rows.length, "model-response", 0, { turn, text: `print(${turn})`, code: `print(${turn})`, toolCalls: [], reasoning: [], usage, model: "openai/gpt-5-mini" }));
    rows.push(encodeHistoryRow(rows.length, "console", 0, { stream: "out", text: `printed turn ${turn}` }));
  }
  return rows;
}

describe("the job page's timeline", () => {
  it("shows the latest sections of a long job, with a link to the whole timeline", () => {
    const page = String(timeline("job-1", history(100), 10));
    assert.match(page, /The 91 earlier sections are not shown/);
    assert.match(page, /href="\/jobs\/job-1\?timeline=all#timeline"/);
    assert.match(page, /printed turn 100/);
    assert.match(page, /printed turn 91\b/);
    assert.doesNotMatch(page, /printed turn 90\b/);
  });

  it("shows every section when asked, with no link", () => {
    const page = String(timeline("job-1", history(100)));
    assert.match(page, /printed turn 1\b/);
    assert.doesNotMatch(page, /earlier sections are not shown/);
  });
  it("shows a tool's error once: the cell's uncaught error that repeats it points to the tool call", () => {
    const rows: HistoryRow[] = [encodeHistoryRow(0, "submitted", 0, { vars: [], params: {} })];
    const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 4 };
    rows.push(encodeHistoryRow(1, "model-response", 0, { turn: 1, text: "await pay(1)", code: "await pay(1)", toolCalls: [], reasoning: [], usage, model: "openai/gpt-5-mini" }));
    rows.push(encodeHistoryRow(2, "tool-call", 0, { name: "pay", origin: "code", args: "{n:1}", durationMs: 1, error: "Error: the bank is closed" }));
    rows.push(encodeHistoryRow(3, "console", 0, { stream: "error", text: "Error: the bank is closed" }));
    rows.push(encodeHistoryRow(4, "console", 0, { stream: "error", text: "Error: another failure" }));
    const page = String(timeline("job-1", rows));
    assert.equal(page.split("the bank is closed").length - 1, 1);
    assert.match(page, /The cell stopped on the error of <code>pay<\/code> shown above/);
    assert.match(page, /another failure/, "an error no tool raised is shown as it is");
  });
});
