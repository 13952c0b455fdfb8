/**
 * `LLM_TOOLS_SCOPE` parsing and selection. `§10.N` names number
 * the scenario they cover.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { z } from "zod";
import { SYSTEM_TOOLS } from "../agents/system-tools.ts";
import { parseLlmToolsScope, selectScopedTools } from "./llm-tools-scope.ts";
import { tool, type ToolDefinition } from "./tool.ts";
import { ToolRegistry } from "./tool-registry.ts";

function make(name: string, options: Partial<ToolDefinition<z.ZodObject<{}>, unknown>> = {}) {
  return tool({ name, description: `The ${name} tool.`, run: () => name, ...options });
}
const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((t) => t.name);
const parts = (text: string) => {
  const { category, add, remove } = parseLlmToolsScope(text);
  return { category, add, remove };
};

describe("LLM_TOOLS_SCOPE parsing", () => {
  it("§10.90 categories in any case, add and remove lists, whitespace, duplicates and conflicts kept", () => {
    assert.deepEqual(parts("   "), { category: undefined, add: undefined, remove: undefined });
    assert.deepEqual(parts("SYSTEM").category, "SYSTEM");
    assert.deepEqual(parts("application").category, "APPLICATION");
    assert.deepEqual(parts(" All ").category, "ALL");
    assert.deepEqual(parts("+docstr, listExamples"), { category: undefined, add: ["docstr", "listExamples"], remove: undefined });
    assert.deepEqual(parts("SYSTEM+sendMessage,dispatchTo"), { category: "SYSTEM", add: ["sendMessage", "dispatchTo"], remove: undefined });
    assert.deepEqual(parts("ALL-sendMessage"), { category: "ALL", add: undefined, remove: ["sendMessage"] });
    assert.deepEqual(parts("-docstr"), { category: undefined, add: undefined, remove: ["docstr"] });
    assert.deepEqual(parts(" system + sendMessage , dispatchTo - docstr + brief "), {
      category: "SYSTEM", add: ["sendMessage", "dispatchTo", "brief"], remove: ["docstr"],
    });
    assert.deepEqual(parts("SYSTEM+docstr-brief"), { category: "SYSTEM", add: ["docstr"], remove: ["brief"] });
    assert.deepEqual(parts("+a,a-a"), { category: undefined, add: ["a", "a"], remove: ["a"] });
  });

  it("§10.91 malformed scopes are InvalidToolsScopeErrors that say what is wrong", () => {
    const cases: Record<string, string> = {
      TOOLS: "'TOOLS' is not a category (SYSTEM, APPLICATION or ALL); tool lists start with + or -",
      docstr: "'docstr' is not a category (SYSTEM, APPLICATION or ALL); tool lists start with + or -",
      "SYSTEM docstr": "'SYSTEM docstr' is not a category (SYSTEM, APPLICATION or ALL); tool lists start with + or -",
      "SYSTEM+": "the list '+' has an empty tool name",
      "SYSTEM++docstr": "the list '+' has an empty tool name",
      "SYSTEM+,docstr": "the list '+,docstr' has an empty tool name",
      "SYSTEM+docstr,": "the list '+docstr,' has an empty tool name",
      "SYSTEM+docstr,,brief": "the list '+docstr,,brief' has an empty tool name",
      "+docstr-": "the list '-' has an empty tool name",
      "+ -": "the list '+' has an empty tool name",
      "+2fast": "the list '+2fast' names '2fast', which is not a tool name",
    };
    for (const [text, reason] of Object.entries(cases)) {
      assert.throws(() => parseLlmToolsScope(text), { name: "InvalidToolsScopeError", message: `LLM_TOOLS_SCOPE ${JSON.stringify(text)}: ${reason}` }, text);
    }
  });
});

describe("LLM_TOOLS_SCOPE selection", () => {
  const app = make("appTool");
  const other = make("otherApp");
  const sys = make("systemTool", { system: true });
  const direct = make("directOnly", { target: "DIRECT" });
  const hiddenApp = make("hiddenApp", { hidden: true });
  const hiddenSystem = make("hiddenSystem", { system: true, hidden: true });
  const registry = new ToolRegistry({ tools: [app, other, direct, hiddenApp], systemTools: [sys, hiddenSystem, ...SYSTEM_TOOLS] });
  const select = (scope: string | undefined, style: "MARKDOWN" | "DIRECT" = "MARKDOWN") => names(selectScopedTools(registry.all, scope, style));

  it("no setting, or an empty one: no formal tools", () => {
    assert.deepEqual(select(undefined), []);
    assert.deepEqual(select(""), []);
  });

  it("§10.92 categories, additions and removals; hidden tools never; each tool once", () => {
    assert.deepEqual(select("SYSTEM+appTool", "DIRECT"), ["systemTool", "brief", "docstr", "appTool"]);
    assert.deepEqual(select("APPLICATION+systemTool"), ["appTool", "otherApp", "systemTool"]);
    assert.deepEqual(select("ALL-appTool"), ["otherApp", "systemTool", "brief", "docstr"]);
    assert.deepEqual(select("ALL"), ["appTool", "otherApp", "systemTool", "brief", "docstr"], "no hidden tools, no DIRECT-only tool in MARKDOWN");
    assert.deepEqual(select("ALL", "DIRECT"), ["appTool", "otherApp", "directOnly", "systemTool", "brief", "docstr"]);
    assert.deepEqual(select("+systemTool"), ["systemTool"]);
    assert.deepEqual(select("+appTool-appTool"), []);
    assert.deepEqual(select("APPLICATION+appTool,appTool"), ["appTool", "otherApp"]);
    for (const hidden of ["hiddenApp", "hiddenSystem"]) {
      assert.throws(() => select(`ALL+${hidden}`), { message: `LLM_TOOLS_SCOPE "ALL+${hidden}": unknown tool '${hidden}' (not one of the agent's visible tools)` });
    }
  });

  it("§10.93 unknown additions and removals, unselected removals and style-incompatible tools are errors", () => {
    assert.throws(() => select("APPLICATION+nowhere"), { name: "InvalidToolsScopeError", message: `LLM_TOOLS_SCOPE "APPLICATION+nowhere": unknown tool 'nowhere' (not one of the agent's visible tools)` });
    assert.throws(() => select("ALL-nowhere"), /unknown tool 'nowhere'/);
    assert.throws(() => select("APPLICATION-systemTool"), { message: `LLM_TOOLS_SCOPE "APPLICATION-systemTool": '-systemTool' removes a tool that is not selected` });
    assert.throws(() => select("-docstr"), /'-docstr' removes a tool that is not selected/);
    assert.throws(() => select("+directOnly"), { message: `LLM_TOOLS_SCOPE "+directOnly": tool 'directOnly' is not offered in the MARKDOWN chat style (its target is DIRECT)` });
    assert.deepEqual(select("APPLICATION"), ["appTool", "otherApp"], "a category silently leaves out tools for other styles");
    assert.deepEqual(names(selectScopedTools([], "ALL")), [], "no available tools: none");
  });
});
