/** `statek show`'s timeline of the records approvals and child jobs add. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeHistoryRow } from "../jobs/history/history-codec.ts";
import { formatTimeline } from "./format-timeline.ts";

describe("timeline of approvals and child jobs", () => {
  it("shows who decided what and when, and how each child ended", () => {
    const decidedAt = Date.UTC(2026, 0, 2, 3, 4, 5);
    const rows = [
      encodeHistoryRow(0, "approval", decidedAt, { requestId: "j:0:2:approval", tool: "pay", args: "{amount:500}", approved: true, note: "ok\nwithin budget", by: "alice", decidedAt }),
      encodeHistoryRow(1, "approval", decidedAt, { requestId: "j:0:5:approval", tool: "requestApproval", summary: "Delete the list?", approved: false, by: "bob", decidedAt }),
      encodeHistoryRow(2, "child-ended", decidedAt, { childId: "c-1", role: "researcher", status: "DONE", result: '"CATS"' }),
      encodeHistoryRow(3, "child-ended", decidedAt, { childId: "c-2", role: "flaky", status: "FAILED", reason: "Error: no luck" }),
    ];
    const text = formatTimeline("j", rows, { full: false }).join("\n");
    assert.match(text, /✓ approved by alice at 2026-01-02T03:04:05\.000Z: pay\(\{amount:500\}\) \(j:0:2:approval\)\n {4}note: ok\n {10}within budget/);
    assert.match(text, /✗ denied by bob at 2026-01-02T03:04:05\.000Z: "Delete the list\?" \(j:0:5:approval\)/);
    assert.match(text, /child job c-1 \(researcher\) DONE\n {4}result: "CATS"/);
    assert.match(text, /child job c-2 \(flaky\) FAILED\n {4}reason: Error: no luck/);
  });

  it("shows a tool's error once: the cell's uncaught error that repeats it points to the tool call", () => {
    const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 4 };
    const rows = [
      encodeHistoryRow(0, "submitted", 0, { vars: [], params: {} }),
      encodeHistoryRow(1, "model-response", 0, { turn: 1, text: "await pay(1)", code: "await pay(1)", toolCalls: [], reasoning: [], usage, model: "openai/gpt-5-mini" }),
      encodeHistoryRow(2, "tool-call", 0, { name: "pay", origin: "code", args: "{n:1}", durationMs: 1, error: "Error: the bank is closed" }),
      encodeHistoryRow(3, "console", 0, { stream: "error", text: "Error: the bank is closed" }),
      encodeHistoryRow(4, "console", 0, { stream: "error", text: "Error: another failure" }),
    ];
    const text = formatTimeline("j", rows, { full: false }).join("\n");
    assert.equal(text.split("the bank is closed").length - 1, 1, text);
    assert.match(text, /✗ the cell stopped on the error of pay shown above/);
    assert.match(text, /✗ Error: another failure/, "an error no tool raised is shown as it is");
  });
});
