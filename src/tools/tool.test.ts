/**
 * Tool definitions. Test names starting with `§10.N` number the scenario they cover.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { errorHandler, isErrorHandler } from "./error-handler.ts";
import { tool } from "./tool.ts";

const described = z.object({ x: z.number().describe("A number.") });

describe("tool() definition checks", () => {
  it("§10.1 run must be a function and the framework context is its second argument (no **kwargs convention)", async () => {
    assert.throws(() => tool({ name: "t", description: "d", run: 5 as never }), { name: "TypeError", message: "tool 't': run must be a function" });
    assert.throws(() => tool({ name: "t", description: "d", system: true, run: undefined as never }), /tool 't': run must be a function/);
    const seen: unknown[] = [];
    const t = tool({ name: "t", description: "d", params: described, run: (args, ctx) => seen.push(args, ctx) });
    await t.run({ x: 1 }, { marker: true } as never);
    assert.deepEqual(seen, [{ x: 1 }, { marker: true }]);
  });

  it("names the tool: from name, or from run's name", () => {
    assert.equal(tool({ description: "d", run: function findSlot() {} }).name, "findSlot");
    assert.throws(() => tool({ description: "d", run: () => 1 }), { name: "TypeError", message: 'tool(): name must be an identifier (pass name, or give run a name) (got "")' });
    assert.throws(() => tool({ name: "two words", description: "d", run: () => 1 }), /tool 'two words': name must be an identifier/);
  });

  it("refuses an empty description", () => {
    assert.throws(() => tool({ name: "t", description: "  \n ", run: () => 1 }), { name: "TypeError", message: "tool 't': description must not be empty" });
  });

  it("refuses params that are not an object schema or whose keys are not identifiers", () => {
    assert.throws(() => tool({ name: "t", description: "d", params: z.string() as never, run: () => 1 }), {
      message: "tool 't': params must be a Zod object schema (z.object({...}))",
    });
    assert.throws(() => tool({ name: "t", description: "d", params: z.object({ "a-b": z.number().describe("x") }), run: () => 1 }), {
      message: "tool 't': parameter name 'a-b' is not an identifier",
    });
  });

  it("refuses undescribed parameters, wherever the description sits", () => {
    assert.throws(() => tool({ name: "t", description: "d", params: z.object({ after: z.date() }), run: () => 1 }), {
      name: "TypeError",
      message: `tool 't': parameter 'after' has no description (add .describe("…"))`,
    });
    for (const schema of [z.number().describe("n").default(3), z.number().default(3).describe("n"), z.number().optional().describe("n"), z.instanceof(Date).describe("d")]) {
      assert.doesNotThrow(() => tool({ name: "t", description: "d", params: z.object({ a: schema }), run: () => 1 }));
    }
  });

  it("refuses reserved parameter names", () => {
    assert.throws(() => tool({ name: "t", description: "d", params: z.object({ ctx: z.number().describe("x") }), run: () => 1 }), {
      message: "tool 't': parameter name 'ctx' is reserved (the framework context is run's second argument, ctx)",
    });
  });

  it("§10.96 refuses an errorHandler not made with errorHandler()", () => {
    const plain = { name: "_cleanup", run: () => undefined };
    assert.throws(() => tool({ name: "t", description: "d", errorHandler: plain as never, run: () => 1 }), {
      name: "TypeError",
      message: "tool 't': errorHandler must be made with errorHandler({ name, run }): a name starting with '_' and run(context, error?)",
    });
  });

  it("refuses a target that is not a chat style, and returns that are neither text nor a schema", () => {
    assert.throws(() => tool({ name: "t", description: "d", target: "HTML" as never, run: () => 1 }), {
      message: 'tool \'t\': target must be a chat style (CONSOLE, MARKDOWN, MD_DIALOG, DIRECT) or a non-empty list of them (got "HTML")',
    });
    assert.throws(() => tool({ name: "t", description: "d", target: [] as never, run: () => 1 }), /non-empty list/);
    assert.throws(() => tool({ name: "t", description: "d", returns: 5 as never, run: () => 1 }), { message: "tool 't': returns must be a string or a Zod schema" });
  });
});

describe("tool() metadata", () => {
  it("§10.2 defaults: not system, no target, not hidden, not read-only", () => {
    const t = tool({ name: "t", description: "d", run: () => 1 });
    assert.deepEqual([t.system, t.target, t.hidden, t.readOnly, t.briefTypes, t.errorHandler], [false, undefined, false, false, false, undefined]);
    assert.equal(tool({ name: "t", description: "d", system: true, run: () => 1 }).system, true);
    assert.equal(tool({ name: "t", description: "d", system: false, run: () => 1 }).system, false);
  });

  it("§10.3 hidden is explicit; a _-prefixed name makes a tool internal (unlisted, callable), not hidden", () => {
    assert.equal(tool({ name: "t", description: "d", hidden: true, run: () => 1 }).hidden, true);
    const plumbing = tool({ name: "_plumbing", description: "d", run: () => 1 });
    assert.deepEqual([plumbing.hidden, plumbing.internal], [false, true]);
    assert.deepEqual([tool({ name: "t", description: "d", run: () => 1 }).internal], [false]);
    assert.equal(tool({ name: "_both", description: "d", hidden: true, run: () => 1 }).hidden, true);
  });

  it("keeps target as given (one style or a frozen list), readOnly, briefTypes and the parameter order", () => {
    const t = tool({ name: "t", description: "  Trimmed.  ", target: ["DIRECT", "CONSOLE"], readOnly: true, briefTypes: true, params: z.object({ b: z.number().describe("b"), a: z.number().describe("a") }), run: () => 1 });
    assert.deepEqual([t.target, t.readOnly, t.briefTypes, t.parameterNames, t.description], [["DIRECT", "CONSOLE"], true, true, ["b", "a"], "Trimmed."]);
    assert.ok(Object.isFrozen(t) && Object.isFrozen(t.target));
    assert.equal(tool({ name: "t", description: "d", target: "DIRECT", run: () => 1 }).target, "DIRECT");
  });
});

describe("errorHandler()", () => {
  it("§10.95 a name starting with _ and a run function make a valid handler; anything else is refused", () => {
    const handler = errorHandler({ name: "_terminate", run: (_context: unknown, _error?: unknown) => undefined });
    assert.equal(isErrorHandler(handler), true);
    assert.equal(isErrorHandler({ name: "_terminate", run: () => undefined }), false, "an undecorated lookalike is not a handler");
    assert.throws(() => errorHandler({ name: "terminate", run: () => undefined }), {
      name: "TypeError",
      message: `errorHandler: name must be an identifier starting with '_' (got "terminate")`,
    });
    assert.throws(() => errorHandler({ name: "_x", run: "no" as never }), { message: "errorHandler '_x': run must be a function (context, error?) => …" });
    const t = tool({ name: "claim", description: "d", errorHandler: handler, run: () => 1 });
    assert.equal(t.errorHandler, handler);
  });
});
