import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, FinalCheck, InvalidPromptFileError, Statek, scriptedModel, tool } from "../index.ts";

let dir: string;
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("Agent.fromPromptFile", () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "statek-prompts-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads metadata lines, the # System Prompt header and the prompt text; the file name is the role", async () => {
    const path = write("calendar_assistant.md", [
      "# MODEL: openai/gpt-5-mini",
      "# chat_style: md_dialog",
      "# LLM_TOOLS_SCOPE: ALL",
      "# POST_PROCESSORS: FinalCheck(minActions=2)",
      "# MAX_TURNS: 7",
      "",
      "# System Prompt",
      "You help {who} with the calendar.",
      "Tools:",
      "{brief_tools}",
      "",
    ].join("\n"));
    const find = tool({ name: "findSlot", description: "Find a free slot.", run: () => null });
    const model = scriptedModel(["Hello."]);
    const agent = Agent.fromPromptFile(path, { tools: [find], model });
    assert.equal(agent.role, "calendar_assistant");
    assert.deepEqual(agent.metadata, { MODEL: "openai/gpt-5-mini", CHAT_STYLE: "MD_DIALOG", LLM_TOOLS_SCOPE: "ALL", POST_PROCESSORS: "FinalCheck(minActions=2)" });
    assert.equal(agent.harness.maxTurns, 7);
    assert.ok(agent.postProcessors[0] instanceof FinalCheck && agent.postProcessors[0].minActions === 2);
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent, { params: { who: "Ada" }, message: "Hi" });
    await statek.step(id);
    await statek.close();
    assert.equal(model.requests[0]!.system, "You help Ada with the calendar.\nTools:\nfindSlot() — Find a free slot.");
  });

  it("takes the role from # ROLE and lets the options override it", () => {
    const path = write("anything.md", "# ROLE: planner\n# System Prompt\nPlan.");
    assert.equal(Agent.fromPromptFile(path).role, "planner");
    assert.equal(Agent.fromPromptFile(path, { role: "other" }).role, "other");
  });

  it("names the file and the line of every problem", () => {
    const cases: Array<[string, string]> = [
      ["# MODEL: openai/gpt-5-mini\nYou are helpful.\n# System Prompt\nx", ':2: expected a metadata line "# KEY: value" or "# System Prompt", got "You are helpful."'],
      ["# MODEL: openai/gpt-5-mini\n# CHAT_STYLE: MARKDWN\n# System Prompt\nx", ":2: unknown CHAT_STYLE 'MARKDWN' (expected CONSOLE, MARKDOWN, MD_DIALOG, DIRECT)"],
      ["# MODEL: gpt-5-mini\n# System Prompt\nx", `:1: MODEL "gpt-5-mini" names no provider; write it as 'openai/gpt-5-mini' (or set the PROVIDER setting)`],
      ["# MODEL: a/b\n# MODEL: c/d\n# System Prompt\nx", ":2: MODEL is set twice (first on line 1)"],
      ["# POST_PROCESSORS: Reviewer()\n# System Prompt\nx", ":1: unknown post-processor 'Reviewer' in POST_PROCESSORS (known: FinalCheck)"],
      ["# MAX_TURNS: many\n# System Prompt\nx", ":1: MAX_TURNS must be a number ≥ 0, got 'many'"],
      ["# MODEL: openai/gpt-5-mini\n\n# System Prompt\n\n", ':3: the prompt after "# System Prompt" is empty'],
      ["# MODEL: openai/gpt-5-mini\nJust a prompt.", ':2: expected a metadata line "# KEY: value" or "# System Prompt", got "Just a prompt."'],
      ["# MODEL: openai/gpt-5-mini\n", ': missing the "# System Prompt" line that starts the prompt text'],
    ];
    for (const [text, expected] of cases) {
      const path = write("bad.md", text);
      assert.throws(() => Agent.fromPromptFile(path), (error: unknown) => {
        assert.ok(error instanceof InvalidPromptFileError);
        assert.equal(error.message, `${path}${expected}`);
        return true;
      });
    }
    assert.throws(() => Agent.fromPromptFile(join(dir, "missing.md")), /missing\.md: cannot read the prompt file: ENOENT/);
  });
});
