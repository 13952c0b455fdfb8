/**
 * docs/tools.md: every example runs as it is. A `ts` block with imports is a program: it runs as its own
 * process and must print exactly the `text` block that follows it (after "Prints:"), if any. A `ts` block
 * without imports is agent code: it runs as a cell of the calendar demo and must not fail.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { Calendar, Meeting, startOfDay } from "../examples/calendar/calendar.ts";
import { findEmptySlot, moveMeetingTool } from "../examples/calendar/tools.ts";
import { Agent, Statek, scriptedModel } from "../src/index.ts";

const root = join(import.meta.dirname, "..");
const guide = readFileSync(join(root, "docs", "tools.md"), "utf8");
const run = promisify(execFile);

interface Example {
  line: number;
  code: string;
  prints: string | undefined;
}

function examples(markdown: string): Example[] {
  const lines = markdown.split("\n");
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const end = lines.findIndex((line, index) => index > i && line === fence);
    assert.ok(end > i, `an unclosed fence at line ${i + 1}`);
    const body = lines.slice(i + 1, end).join("\n");
    if (open[2] === "ts") found.push({ line: i + 1, code: body, prints: undefined });
    else if (open[2] === "text" && lines.slice(0, i).reverse().find((line) => line.trim())?.trim() === "Prints:") {
      const last = found[found.length - 1];
      assert.ok(last && last.prints === undefined, `"Prints:" at line ${i + 1} follows no example`);
      last.prints = body;
    }
    i = end;
  }
  return found;
}

const all = examples(guide);
const programs = all.filter((example) => /^import /m.test(example.code));
const cells = all.filter((example) => !/^import /m.test(example.code));

mkdirSync(join(root, ".tmp"), { recursive: true });
const dir = mkdtempSync(join(root, ".tmp", "guide-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/tools.md", () => {
  it("has programs with their output, and agent code", () => {
    assert.ok(programs.length >= 8, `${programs.length} programs`);
    assert.ok(programs.filter((example) => example.prints !== undefined).length >= 8);
    assert.ok(cells.length >= 1);
  });

  for (const example of programs) {
    it(`the program at line ${example.line} runs${example.prints === undefined ? "" : " and prints what the guide says"}`, async () => {
      const file = join(dir, `example-${example.line}.ts`);
      writeFileSync(file, example.code);
      // `statek-source`: inside this checkout, `import … from "statek"` resolves to the sources.
      const { stdout } = await run(process.execPath, ["--conditions=statek-source", file], { encoding: "utf8" });
      if (example.prints !== undefined) assert.equal(stdout.trimEnd(), example.prints);
    });
  }

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
