/**
 * Registries, discovery and selection by scope and chat style. `§10.N` in a test name numbers the scenario it
 * covers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { z } from "zod";
import { SYSTEM_TOOLS } from "../agents/system-tools.ts";
import { matchesChatStyle } from "./chat-style.ts";
import { tool, type ToolDefinition } from "./tool.ts";
import { ToolRegistry, selectTools } from "./tool-registry.ts";

function make(name: string, options: Partial<ToolDefinition<z.ZodObject<{}>, unknown>> = {}) {
  return tool({ name, description: `The ${name} tool.`, run: () => name, ...options });
}

const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((t) => t.name);

describe("tool registries", () => {
  it("§10.3 discovery leaves hidden tools out unless asked", () => {
    const registry = new ToolRegistry({ tools: [make("visible"), make("secret", { hidden: true })] });
    assert.deepEqual(names(registry.find()), ["visible"]);
    assert.deepEqual(names(registry.find("ALL", { includeHidden: true })), ["visible", "secret"]);
    assert.deepEqual(names(registry.all), ["visible", "secret"], "the workspace gets every tool");
  });

  it("§10.4 (changed) an agent's tool wins over a system tool of the same name, hidden or not", () => {
    const own = make("brief", { hidden: true });
    const registry = new ToolRegistry({ tools: [own], systemTools: SYSTEM_TOOLS });
    assert.equal(registry.get("brief"), own);
    assert.deepEqual(names(registry.find()), ["docstr"], "the hidden own tool masks the system one: one name, one tool");
  });

  it("§10.5 no duplicate names in discovery", () => {
    const registry = new ToolRegistry({ tools: [make("a"), make("docstr")], systemTools: SYSTEM_TOOLS });
    const found = names(registry.find());
    assert.deepEqual(found, [...new Set(found)]);
    assert.deepEqual(found, ["a", "docstr", "brief"]);
  });

  it("§10.6 SYSTEM finds the built-in brief and docstr; APPLICATION does not", () => {
    const registry = new ToolRegistry({ tools: [make("app")], systemTools: SYSTEM_TOOLS });
    assert.deepEqual(names(registry.find("SYSTEM")), ["brief", "docstr"]);
    assert.deepEqual(names(registry.find("APPLICATION")), ["app"]);
    assert.deepEqual(names(registry.own), ["app"]);
  });

  it("§10.7 target: a style or a list; untargeted tools match every style; no style given matches all", () => {
    const direct = make("direct", { target: "DIRECT" });
    const both = make("both", { target: ["DIRECT", "CONSOLE"] });
    const consoleOnly = make("consoleOnly", { target: "CONSOLE" });
    const universal = make("universal");
    const tools = [direct, both, consoleOnly, universal];
    assert.deepEqual(names(selectTools(tools, "ALL", { chatStyle: "DIRECT" })), ["direct", "both", "universal"]);
    assert.deepEqual(names(selectTools(tools, "ALL", { chatStyle: "MARKDOWN" })), ["universal"]);
    assert.deepEqual(names(selectTools(tools)), ["direct", "both", "consoleOnly", "universal"]);
    assert.equal(matchesChatStyle(undefined, "CONSOLE"), true);
    assert.equal(matchesChatStyle(["DIRECT"], undefined), true);
  });

  it("§10.8 SYSTEM for DIRECT: system tools meant for DIRECT, not system CONSOLE-only nor application DIRECT", () => {
    const tools = [make("sysDirect", { system: true, target: "DIRECT" }), make("sysConsole", { system: true, target: "CONSOLE" }), make("appDirect", { target: "DIRECT" })];
    assert.deepEqual(names(selectTools(tools, "SYSTEM", { chatStyle: "DIRECT" })), ["sysDirect"]);
  });

  it("§10.9 selectTools keeps the input order; SYSTEM and APPLICATION split it; empty stays empty", () => {
    const [appB, sysA, appA, sysB] = [make("appB"), make("sysA", { system: true }), make("appA"), make("sysB", { system: true })];
    const input = [appB!, sysA!, appA!, sysB!];
    assert.deepEqual(names(selectTools(input, "ALL")), ["appB", "sysA", "appA", "sysB"]);
    assert.deepEqual(names(selectTools(input, "SYSTEM")), ["sysA", "sysB"]);
    assert.deepEqual(names(selectTools(input, "APPLICATION")), ["appB", "appA"]);
    for (const scope of ["ALL", "SYSTEM", "APPLICATION"] as const) assert.deepEqual(selectTools([], scope), []);
    assert.ok(Array.isArray(selectTools(input)));
  });

  it("§10.10 (changed) a registry holds only tools: a plain function is refused with a TypeError", () => {
    assert.throws(() => new ToolRegistry({ tools: [(() => 1) as never] }), { name: "TypeError", message: "ToolRegistry: every entry must be made with tool() (got a function)" });
  });

  it("§10.11 selection drops hidden tools and filters by chat style", () => {
    assert.deepEqual(names(selectTools([make("hidden", { hidden: true }), make("visible")], "ALL")), ["visible"]);
    const tools = [make("direct", { target: "DIRECT" }), make("console", { target: "CONSOLE" }), make("universal")];
    assert.deepEqual(names(selectTools(tools, "ALL", { chatStyle: "DIRECT" })), ["direct", "universal"]);
  });

  it("visible(style): what the model may be told about in a job of that style", () => {
    const registry = new ToolRegistry({ tools: [make("a"), make("b", { target: "DIRECT" }), make("_c")], systemTools: SYSTEM_TOOLS });
    assert.deepEqual(names(registry.visible("MARKDOWN")), ["a", "brief", "docstr"]);
    assert.deepEqual(names(registry.visible("DIRECT")), ["a", "b", "brief", "docstr"]);
  });
});
