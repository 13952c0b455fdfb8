/**
 * Every error message the tools page lists, asserted by its exact text, in the form the model or the developer
 * reads it.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { describeClass, errorHandler, tool } from "../src/index.ts";
import { createQuickJsExecutor } from "../src/workspace/index.ts";
import { parseLlmToolsScope } from "../src/tools/llm-tools-scope.ts";
import { formatError } from "../src/tools/call-tool.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { SYSTEM_TOOLS } from "../src/agents/system-tools.ts";

class Calendar {
  eventsFor(day: Date): Date[] {
    return [day];
  }
}
describeClass(Calendar, { description: "A calendar.", members: { eventsFor: "The meetings of a day." } });

const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({ calendar: z.instanceof(Calendar).describe("Calendar object to search."), after: z.date().describe("Earliest acceptable start time.") }),
  run: () => null,
});
const failing = tool({ name: "failing", description: "Fails.", run: () => { throw new RangeError("no slot available"); } });
const hidden = tool({ name: "plumbing", description: "Internal.", hidden: true, run: () => 1 });
const internal = tool({ name: "_audit", description: "Unlisted.", run: () => "audited" });

const workspaces: Workspace[] = [];
after(() => workspaces.forEach((workspace) => workspace.dispose()));
async function workspace(): Promise<Workspace> {
  const calendar = new Calendar();
  const opened = await Workspace.open({
    executor: createQuickJsExecutor(),
    job: { id: "j", role: "assistant" },
    tools: [findEmptySlot, failing, hidden, internal, ...SYSTEM_TOOLS],
    globals: { calendar },
    bindings: new Map([["calendar", calendar]]),
  }, []);
  workspaces.push(opened);
  return opened;
}

describe("the error messages of the Tools page", () => {
  it("definition checks: a TypeError naming the tool and what is wrong", () => {
    const cases: Array<[() => unknown, string]> = [
      [() => tool({ name: "t", description: "", run: () => 1 }), "tool 't': description must not be empty"],
      [() => tool({ name: "t", description: "d", params: z.array(z.string()) as never, run: () => 1 }), "tool 't': params must be a Zod object schema (z.object({...}))"],
      [() => tool({ name: "t", description: "d", params: z.object({ "not-an-id": z.string().describe("x") }), run: () => 1 }), "tool 't': parameter name 'not-an-id' is not an identifier"],
      [() => tool({ name: "t", description: "d", params: z.object({ after: z.date() }), run: () => 1 }), `tool 't': parameter 'after' has no description (add .describe("…"))`],
      [() => tool({ name: "t", description: "d", params: z.object({ ctx: z.string().describe("x") }), run: () => 1 }), "tool 't': parameter name 'ctx' is reserved (the framework context is run's second argument, ctx)"],
      [() => tool({ name: "t", description: "d", run: null as never }), "tool 't': run must be a function"],
      [() => tool({ name: "t", description: "d", errorHandler: { name: "_x", run() {} } as never, run: () => 1 }), "tool 't': errorHandler must be made with errorHandler({ name, run }): a name starting with '_' and run(context, error?)"],
      [() => errorHandler({ name: "release", run() {} }), `errorHandler: name must be an identifier starting with '_' (got "release")`],
    ];
    for (const [define, message] of cases) assert.throws(define, { name: "TypeError", message });
  });

  it('ValidationError: findEmptySlot(after): expected a date, got "tomorrow"', async () => {
    const ws = await workspace();
    const report = await ws.runCell('findEmptySlot(calendar, "tomorrow")');
    assert.equal(report.error, 'ValidationError: findEmptySlot(after): expected a date, got "tomorrow"');
    assert.equal(report.toolCalls[0]!.error, 'ValidationError: findEmptySlot(after): expected a date, got "tomorrow"');
  });

  it("NameError: tool 'x' not found (a formal call)", async () => {
    const report = await (await workspace()).callFormal("x", {}, "c1");
    assert.equal(report.toolCalls[0]!.error, "NameError: tool 'x' not found");
  });

  it("NameError: tool 'x' is not exposed to this job (code and formal)", async () => {
    const ws = await workspace();
    assert.equal((await ws.runCell("plumbing()")).error, "NameError: tool 'plumbing' is not exposed to this job");
    assert.equal((await ws.callFormal("plumbing", {}, "c1")).toolCalls[0]!.error, "NameError: tool 'plumbing' is not exposed to this job");
  });

  it("a _-named tool is unlisted but callable: no NameError for it", async () => {
    const ws = await workspace();
    const report = await ws.runCell("print(await _audit())");
    assert.equal(report.error, undefined);
    assert.deepEqual(report.console.map((entry) => entry.text), ["audited"]);
  });

  it("<ErrorName>: <message> for a thrown error", async () => {
    const ws = await workspace();
    assert.equal((await ws.runCell("failing()")).error, "RangeError: no slot available");
    assert.equal((await ws.callFormal("failing", {}, "c1")).toolCalls[0]!.error, "RangeError: no slot available");
    assert.equal(formatError("plain string"), 'Error: "plain string"');
  });

  it("NameError: name 'x' is not defined and Error: Calendar has no method 'foo' (brief/docstr)", async () => {
    const ws = await workspace();
    const report = await ws.runCell('brief("x")\ndocstr(calendar, "foo")');
    assert.deepEqual(report.console.map((entry) => entry.text), ["NameError: name 'x' is not defined", "Error: Calendar has no method 'foo'"]);
  });

  it("LLM_TOOLS_SCOPE: a readable error for bad syntax", () => {
    assert.throws(() => parseLlmToolsScope("SYSTEM docstr"), {
      name: "InvalidToolsScopeError",
      message: `LLM_TOOLS_SCOPE "SYSTEM docstr": 'SYSTEM docstr' is not a category (SYSTEM, APPLICATION or ALL); tool lists start with + or -`,
    });
  });
});
