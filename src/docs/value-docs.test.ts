/**
 * Documentation of tools, functions, classes, objects and methods: `describeClass`/`statekDocs`, what `brief`
 * and `docstr` print. `§10.N` in a test name numbers the scenario it covers.
 */
import assert from "node:assert/strict";
import { describe as suite, it } from "node:test";
import { z } from "zod";
import { tool } from "../tools/tool.ts";
import { parseAcl } from "./acl.ts";
import { describeClass, docsOf } from "./class-docs.ts";
import { briefDocs, fullDocs } from "./value-docs.ts";

class Calculator {
  scale = 1;
  _secret = "s";
  add(a: number, b: number): number {
    return (a + b) * this.scale;
  }
  divide(a: number, { by = 1 }: { by?: number } = {}): number {
    return a / by;
  }
  get double(): number {
    return this.scale * 2;
  }
  _internal(): void {}
}
describeClass(Calculator, {
  description: "Does arithmetic.\n\nScales every result by `scale`.",
  members: {
    add: { description: "Adds two numbers.", type: "(a: number, b: number): number", params: { a: "First.", b: "Second." }, returns: "The scaled sum." },
    double: { description: "Twice the scale.", type: "number" },
    scale: { description: "Factor applied to results.", type: "number" },
  },
});

class Schedule {
  static statekDocs = {
    description: "VARIANTS/:A schedule (internal wording)./TOOL:A schedule of slots.",
    members: { getSlots: "Free slots.", updateSlot: "Changes a slot.", secretField: "Never shown." },
    acl: "+*\n-secret*\n-update*: Viewer",
  };
  secretField = 1;
  getSlots(day: Date): Date[] {
    return [day];
  }
  updateSlot(id: number, slot: unknown): void {
    void id;
    void slot;
  }
}

class Undocumented {
  owner = "ana";
  findMeeting(title: string, { day }: { day: Date }): string {
    return `${title}${String(day)}`;
  }
}

function formatSlot(slot: { start: Date }, ...rest: unknown[]): string {
  void rest;
  return slot.start.toISOString();
}
describeClass(formatSlot, { description: "Formats a slot for people.", type: "(slot: Slot): string", params: { slot: "The slot." }, returns: "Like 15:00–16:00." });

const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.\n\nLooks at one day only.",
  params: z.object({
    after: z.date().describe("Earliest acceptable start time."),
    durationMinutes: z.number().default(30).describe("Required meeting length."),
  }),
  returns: z.object({ start: z.date(), end: z.date() }).nullable().describe("The first free slot, or null when the day is full."),
  run: () => null,
});

suite("describeClass() and statekDocs", () => {
  it("§10.57 docs are found by class; statekDocs works as well; malformed docs are TypeErrors", () => {
    assert.equal(docsOf(Calculator)?.description.startsWith("Does arithmetic."), true);
    assert.equal(docsOf(Schedule)?.description.startsWith("VARIANTS/"), true);
    assert.equal(docsOf(Undocumented), undefined);
  });

  it("§10.58 (changed) documentation problems show at definition time", () => {
    class Thing {}
    assert.throws(() => describeClass(Thing, { description: " " }), { name: "TypeError", message: "describeClass(Thing): description must not be empty" });
    assert.throws(() => describeClass(Thing, { description: "ok", members: { x: { type: "number" } as never } }), {
      message: "describeClass(Thing): member 'x' needs a description (a string, or { description, type?, params?, returns? })",
    });
    assert.throws(() => describeClass("Thing" as never, { description: "ok" }), { message: "describeClass: expected a class or function, got a string" });
  });
});

suite("brief()", () => {
  it("§10.77 a tool: its brief line and what it returns", () => {
    assert.equal(briefDocs(findEmptySlot, undefined), "findEmptySlot(after, durationMinutes?) — Find an available calendar slot after a given time.\n    Returns: The first free slot, or null when the day is full.");
  });

  it("§10.61/§10.77 a function: signature without types, brief, returns; no declare", () => {
    const text = briefDocs(formatSlot, undefined);
    assert.equal(text, "formatSlot(slot) — Formats a slot for people.\n    Returns: Like 15:00–16:00.");
    assert.doesNotMatch(text, /declare/);
  });

  it("§10.63/§10.77 a class or an object of it: name, brief, and its members' briefs", () => {
    const expected = "Calculator — Does arithmetic.\n    add(a, b) — Adds two numbers.\n    double — Twice the scale.\n    scale — Factor applied to results.\n    divide(a, options)";
    assert.equal(briefDocs(Calculator, undefined), expected);
    assert.equal(briefDocs(new Calculator(), undefined), expected);
  });

  it("§10.59/§10.77 a method: Class.method(params) with its brief and returns; this is never a parameter", () => {
    assert.equal(briefDocs(new Calculator(), "add"), "Calculator.add(a, b) — Adds two numbers.\n    Returns: The scaled sum.");
    assert.equal(briefDocs(Undocumented, "findMeeting"), "Undocumented.findMeeting(title, options)");
  });

  it("an undocumented class shows its public members (reflection), an instance its own fields too", () => {
    assert.equal(briefDocs(Undocumented, undefined), "Undocumented (undocumented)\n    findMeeting(title, options)");
    assert.equal(briefDocs(new Undocumented(), undefined), "Undocumented (undocumented)\n    findMeeting(title, options)\n    owner");
  });

  it("§10.73 briefTypes shows the types in the brief form; the full form always has them", () => {
    const render = tool({ name: "renderCalendar", description: "Render a month.", briefTypes: true, params: z.object({ month: z.date().describe("Any day of it.") }), returns: z.string().describe("The text."), run: () => "" });
    const plain = tool({ name: "renderCalendar", description: "Render a month.", params: z.object({ month: z.date().describe("Any day of it.") }), run: () => "" });
    assert.equal(briefDocs(render, undefined).split("\n")[0], "renderCalendar(month: Date) — Render a month.");
    assert.equal(briefDocs(plain, undefined), "renderCalendar(month) — Render a month.");
    assert.match(fullDocs(plain, undefined), /declare function renderCalendar\(month: Date\): Promise<unknown>;/);
  });
});

suite("docstr()", () => {
  it("§10.62/§10.76 a tool: a TypeScript declaration with JSDoc (no ctx), defaults and the return type", () => {
    assert.equal(fullDocs(findEmptySlot, undefined), [
      "/**",
      " * Find an available calendar slot after a given time.",
      " *",
      " * Looks at one day only.",
      " * @param after Earliest acceptable start time.",
      " * @param durationMinutes Required meeting length. (default 30)",
      " * @returns The first free slot, or null when the day is full.",
      " */",
      "declare function findEmptySlot(after: Date, durationMinutes?: number): Promise<{ start: Date; end: Date } | null>;",
    ].join("\n"));
    assert.doesNotMatch(fullDocs(findEmptySlot, undefined), /ctx/);
  });

  it("§10.60/§10.63/§10.65/§10.66 a class: JSDoc, then documented members (fields, getters, methods), then the rest", () => {
    assert.equal(fullDocs(Calculator, undefined), [
      "/**",
      " * Does arithmetic.",
      " *",
      " * Scales every result by `scale`.",
      " */",
      "declare class Calculator {",
      "  /**",
      "   * Adds two numbers.",
      "   * @param a First.",
      "   * @param b Second.",
      "   * @returns The scaled sum.",
      "   */",
      "  add(a: number, b: number): number;",
      "  /** Twice the scale. */",
      "  double: number;",
      "  /** Factor applied to results. */",
      "  scale: number;",
      "  divide(a, options);",
      "}",
    ].join("\n"));
  });

  it("§10.65 an object: its own public fields with their types join the documented members", () => {
    assert.equal(fullDocs(new Undocumented(), undefined), "declare class Undocumented {\n  findMeeting(title, options);\n  owner: string;\n}");
  });

  it("§10.74 a method of a class, with the name trimmed; a blank method name documents the thing itself", () => {
    assert.equal(fullDocs(Calculator, "double"), "declare class Calculator {\n  /** Twice the scale. */\n  double: number;\n}");
    assert.equal(fullDocs(formatSlot, undefined), "/**\n * Formats a slot for people.\n * @param slot The slot.\n * @returns Like 15:00–16:00.\n */\ndeclare function formatSlot(slot: Slot): string;");
  });

  it("§10.75 errors: a missing method, a method of something that is not a class, values that cannot be documented", () => {
    assert.throws(() => fullDocs(Calculator, "foo"), { name: "Error", message: "Calculator has no method 'foo'" });
    assert.throws(() => briefDocs(new Calculator(), "_internal"), { message: "Calculator has no method '_internal'" });
    assert.throws(() => fullDocs(formatSlot, "x"), { message: "formatSlot is not a class" });
    assert.throws(() => briefDocs(findEmptySlot, "x"), { message: "findEmptySlot is not a class" });
    assert.throws(() => fullDocs(42, undefined), { message: "brief() and docstr() document tools, functions, classes and objects of classes; got a number" });
    assert.throws(() => fullDocs({ a: 1 }, undefined), /got a plain object/);
  });
});

suite("ACL in documentation", () => {
  it("§10.69 the class's ACL hides members; scoped rules depend on the role; the tool variant is used", () => {
    assert.equal(briefDocs(Schedule, undefined), "Schedule — A schedule of slots.\n    getSlots(day) — Free slots.\n    updateSlot(id, slot) — Changes a slot.");
    assert.equal(briefDocs(Schedule, undefined, { role: "Viewer" }), "Schedule — A schedule of slots.\n    getSlots(day) — Free slots.");
    assert.throws(() => fullDocs(Schedule, "updateSlot", { role: "Viewer" }), { message: "Schedule has no method 'updateSlot'" });
    assert.doesNotMatch(fullDocs(new Schedule(), undefined), /secret/);
  });

  it("§10.69 the default ACL applies to classes without one; a class's own ACL overrides it", () => {
    assert.equal(fullDocs(Undocumented, undefined, { defaultAcl: parseAcl("-*") }), "declare class Undocumented {}");
    assert.equal(fullDocs(Undocumented, undefined, { defaultAcl: parseAcl("+*\n-find*") }), "declare class Undocumented {}");
    assert.match(briefDocs(Schedule, undefined, { defaultAcl: parseAcl("-*") }), /getSlots/);
  });
});
