/** Prompt placeholders. `§10.N` in a test name numbers the scenario it covers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { tool } from "../tools/tool.ts";
import { renderPrompt, type PromptContext } from "./render-prompt.ts";

const clock = tool({ name: "clock", description: "Get the current time.", returns: "The current timestamp.", run: () => "now" });
const exitTool = tool({ name: "exitTool", description: "Stop with a reason.", params: z.object({ reason: z.string().describe("Why.") }), run: () => 1 });
const hidden = tool({ name: "adapter", description: "Plumbing.", hidden: true, run: () => 1 });
const underscored = tool({ name: "_internal", description: "Plumbing too.", run: () => 1 });
const context = (tools: PromptContext["tools"], extra: Partial<PromptContext> = {}): PromptContext => ({ tools, sharedVars: [], params: {}, ...extra });

describe("prompt placeholders", () => {
  it("§10.80 {tools} lists the given tools; with none, it says so (system tools are not listed unless given)", () => {
    const text = renderPrompt("Available tools:\n{tools}", context([clock, exitTool]));
    assert.equal(text, "Available tools:\nclock()\n    Get the current time.\n    Returns: The current timestamp.\n\nexitTool(reason: string)\n    Stop with a reason.\n    reason: Why.");
    assert.equal(renderPrompt("Available tools:\n{tools}", context([])), "Available tools:\n(none)");
  });

  it("§10.81 a placeholder after a comment marker expands as a block comment; {detailed_tools} declares", () => {
    assert.equal(renderPrompt("# --- TOOLS ---\n# {tools}", context([clock])), "# --- TOOLS ---\n# clock()\n#     Get the current time.\n#     Returns: The current timestamp.");
    assert.equal(renderPrompt("  // {brief_tools}", context([clock, exitTool])), "  // clock() — Get the current time.\n  // exitTool(reason) — Stop with a reason.");
    assert.equal(renderPrompt("{detailed_tools}", context([clock])), "/**\n * Get the current time.\n * @returns The current timestamp.\n */\ndeclare function clock(): Promise<unknown>;");
  });

  it("§10.82 hidden and _-prefixed tools never appear under any tool placeholder", () => {
    for (const placeholder of ["{tools}", "{brief_tools}", "{typed_brief_tools}", "{detailed_tools}"]) {
      const text = renderPrompt(placeholder, context([clock, hidden, underscored]));
      assert.doesNotMatch(text, /adapter|_internal|Plumbing/, placeholder);
      assert.match(text, /clock/);
    }
  });

  it("{typed_brief_tools}: the brief lines with each parameter's type", () => {
    assert.equal(renderPrompt("{typed_brief_tools}", context([clock, exitTool])), "clock() — Get the current time.\nexitTool(reason: string) — Stop with a reason.");
    assert.equal(renderPrompt("{typed_brief_tools}", context([])), "(none)");
  });

  it("§10.83 {shared_var_names}: the job's initial variables with their types", () => {
    const vars = [{ name: "user", type: "User" }, { name: "message", type: "string" }];
    assert.equal(renderPrompt("Available variables: {shared_var_names}", context([], { sharedVars: vars })), "Available variables: user (User), message (string)");
    assert.equal(renderPrompt("Variables: {shared_var_names}", context([])), "Variables: (none)");
  });

  it("job parameters {name}; unknown names, JSON and braces inside descriptions are left alone", () => {
    const braces = tool({ name: "render", description: "Fills {goal} and {user} in a template like {\"a\": 1}.", run: () => 1 });
    const text = renderPrompt('Goal: {goal} · n={count} · {unknown} · {"json": true}\n{brief_tools}', context([braces], { params: { goal: "plan", count: 3, user: "ana" } }));
    assert.equal(text, 'Goal: plan · n=3 · {unknown} · {"json": true}\nrender() — Fills {goal} and {user} in a template like {"a": 1}.');
  });
});
