/**
 * The formal tools of one model request: `ts_cli` in DIRECT, the selection by
 * `LLM_TOOLS_SCOPE` for the job's chat style, in the provider's schema profile. `§10.N` in a test name numbers
 * the scenario it covers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { DOCUMENTATION_TOOLS } from "../../docs/system-tools.ts";
import { tool } from "../../tools/tool.ts";
import { requestTools } from "./request-tools.ts";

class Calendar {}
const runCode = tool({ name: "runCode", description: "Run code.\n\nDetails here.", params: z.object({ code: z.string().describe("The code.") }), run: () => 1 });
const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({ calendar: z.instanceof(Calendar).describe("Calendar object to search.") }),
  run: () => null,
});

describe("request tools", () => {
  const hidden = tool({ name: "secret", description: "d", hidden: true, run: () => 1 });
  const agent = { registry: { all: [findEmptySlot, runCode, hidden, ...DOCUMENTATION_TOOLS] } };

  it("§10.94 the selection by LLM_TOOLS_SCOPE for the job's chat style, in the provider's profile; hidden never", () => {
    assert.deepEqual(requestTools(agent, "MARKDOWN", {}, "openai.chat"), []);
    assert.deepEqual(requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "+brief" }, "x").map((p) => p.name), ["brief"]);
    const all = requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "ALL" }, "openai.responses");
    assert.deepEqual(all.map((p) => p.name), ["findEmptySlot", "runCode", "brief", "docstr"]);
    assert.ok(all.every((payload) => payload.strict === true));
    assert.deepEqual(requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "APPLICATION+brief" }, "anthropic").map((p) => p.name), ["findEmptySlot", "runCode", "brief"]);
    assert.deepEqual(requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "ALL-findEmptySlot" }, "x").map((p) => p.name), ["runCode", "brief", "docstr"]);
    assert.throws(() => requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "ALL+secret" }, "x"), { name: "InvalidToolsScopeError" });
  });

  it("brief and docstr take the name of a variable formally", () => {
    const [brief] = requestTools(agent, "MARKDOWN", { LLM_TOOLS_SCOPE: "+brief" }, "x");
    assert.deepEqual((brief!.inputSchema.properties as Record<string, unknown>).what, {
      description: "What to document: a tool, function, class or object. (the name of a workspace variable holding the value)",
      type: "string",
    });
  });

  it("DIRECT offers ts_cli first, then the selection; a bad TOOLS_SCHEMA is read only when a tool is offered", () => {
    assert.deepEqual(requestTools(agent, "DIRECT", { LLM_TOOLS_SCOPE: "+brief" }, "anthropic.messages").map((p) => p.name), ["ts_cli", "brief"]);
    assert.deepEqual(requestTools(agent, "MARKDOWN", { TOOLS_SCHEMA: "loose" }, "x"), []);
    assert.throws(() => requestTools(agent, "DIRECT", { TOOLS_SCHEMA: "loose" }, "x"), { name: "TypeError", message: 'TOOLS_SCHEMA metadata must be "strict" or "plain" (got "loose")' });
  });
});
