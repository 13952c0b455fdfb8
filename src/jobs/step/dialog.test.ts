import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { splitDialog } from "./dialog.ts";

describe("dialog messages", () => {
  it("closes a message at a file path, which becomes its media", () => {
    assert.deepEqual(splitDialog("Here is your chart: gen/chart.svg"), [{ body: "Here is your chart:", media: "gen/chart.svg" }]);
    assert.deepEqual(splitDialog("First: out/a.png. Then the table: out/data/table.csv\nThat is all."), [
      { body: "First:", media: "out/a.png" },
      { body: "Then the table:", media: "out/data/table.csv" },
      { body: "That is all." },
    ]);
  });

  it("sends text with a Markdown link or image as one message, with sandbox links pointing at workspace files", () => {
    const text = "Your preferences: ![Preferences calendar](sandbox:/private/calendar.svg) and gen/chart.svg";
    assert.deepEqual(splitDialog(text), [{ body: "Your preferences: ![Preferences calendar](private/calendar.svg) and gen/chart.svg" }]);
  });

  it("leaves URLs, bare file names and line structure alone", () => {
    assert.deepEqual(splitDialog("See https://example.com/docs/page.html or notes.txt.\n\n- one\n- two"), [
      { body: "See https://example.com/docs/page.html or notes.txt.\n\n- one\n- two" },
    ]);
    assert.deepEqual(splitDialog("   "), []);
  });
});
