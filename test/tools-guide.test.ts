/**
 * docs/tools.md: every example runs as it is. A `ts` block with imports is a program: it runs as its own
 * process and must print exactly the `text` block that follows it (after "Prints:"), if any. A `ts` block
 * without imports is agent code: it runs as a cell of the calendar demo and must not fail.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Calendar, Meeting, startOfDay } from "../examples/calendar/calendar.ts";
import { findEmptySlot, moveMeetingTool } from "../examples/calendar/tools.ts";
import { Agent, Statek, scriptedModel } from "../src/index.ts";
import { docExamples, isProgram, testPrograms } from "./support/doc-examples.ts";

const all = docExamples("tools.md");
const programs = all.filter(isProgram);
const cells = all.filter((example) => !isProgram(example));

describe("docs/tools.md", () => {
  it("has programs with their output, and agent code", () => {
    assert.ok(programs.length >= 8, `${programs.length} programs`);
    assert.ok(programs.filter((example) => example.prints !== undefined).length >= 8);
    assert.ok(cells.length >= 1);
  });

  testPrograms(all);

  for (const example of cells) {
    it(`the agent code at line ${example.line} runs in the calendar demo`, async () => {
      const calendar = new Calendar(":memory:", "Ada");
      const today = startOfDay(new Date("2026-03-10T08:00:00Z"));
      calendar.seedDay(today, [["Standup", "09:00", 15], ["Weekly planning", "10:00", 60]]);
      const agent = new Agent({ role: "guide", tools: [findEmptySlot, moveMeetingTool(calendar)], model: scriptedModel(["```ts\n" + example.code + "\nexit()\n```"]) });
      const statek = await Statek.open({ store: ":memory:", agents: [agent], bindings: { calendar } });
      statek.expose(Meeting, { id: (meeting) => meeting.id, load: (id) => calendar.meeting(Number(id)) });
      try {
        const view = await statek.runJob((await statek.submitJob(agent, { vars: { calendar, today } })).id);
        assert.equal(view.status, "DONE", view.console.join("\n"));
        assert.deepEqual(view.history.filter((record) => record.kind === "console" && record.data.stream === "error"), []);
      } finally {
        await statek.close();
        calendar.close();
      }
    });
  }
});
