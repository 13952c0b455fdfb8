import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CellProgram } from "./cell-program.ts";
import type { CellCheckInput } from "./type-check-result.ts";
import { named, type TypeShape } from "./type-shape.ts";
import type { TypedVariable } from "./workspace-declarations.ts";

const program = new CellProgram();

const DECLARATIONS = `declare class Calendar {
  private constructor();
  owner: string;
  eventsFor(day: Date): { title: string; start: Date }[];
}
declare function findEmptySlot(calendar: Calendar, after: Date, durationMinutes?: number): Promise<{ start: Date; end: Date } | null>;
declare function findEmptySlot(args: { calendar: Calendar; after: Date; durationMinutes?: number }): Promise<{ start: Date; end: Date } | null>;`;

const value = (name: string, shape: TypeShape): TypedVariable => ({ name, type: { holds: "value", shape } });
const definition = (name: string): TypedVariable => ({ name, type: { holds: "definition", shape: { kind: "any" } } });

function check(cell: string, input: Partial<CellCheckInput> = {}) {
  return program.check({ declarations: DECLARATIONS, cells: [], variables: [value("calendar", named("Calendar"))], cell, ...input });
}

/** The errors as `line: (TScode) message` lines. */
function errors(cell: string, input: Partial<CellCheckInput> = {}): string[] {
  return check(cell, input).errors.map((error) => `${error.line}: (TS${error.code}) ${error.message}`);
}

describe("checking a cell", () => {
  it("finds a tool called with a string where it wants a Date, at the cell's own line", () => {
    assert.deepEqual(errors("const day = new Date()\nprint(day)\nconst slot = await findEmptySlot(calendar, 'tomorrow')"), [
      "3: (TS2345) Argument of type 'string' is not assignable to parameter of type 'Date'.",
    ]);
  });

  it("checks the named form of a tool call, and members of declared classes", () => {
    assert.deepEqual(errors("await findEmptySlot({ calendar, after: new Date(), durationMinutes: '30' })"), [
      "1: (TS2322) Type 'string' is not assignable to type 'number'.",
    ]);
    assert.deepEqual(errors("calendar.eventsFor(new Date()).map((event) => event.titel)"), [
      "1: (TS2551) Property 'titel' does not exist on type '{ title: string; start: Date; }'. Did you mean 'title'?",
    ]);
  });

  it("accepts what a REPL cell does: top-level await, echoed expressions, a variable declared again with another type", () => {
    assert.deepEqual(errors("const slot = await findEmptySlot(calendar, new Date())\nslot\nslot?.start.toISOString()", {
      variables: [value("calendar", named("Calendar")), value("slot", named("string"))],
    }), []);
    assert.deepEqual(errors("let count = 'now a string'\ncount.toUpperCase()", { variables: [value("count", named("number"))] }), []);
  });

  it("accepts the JavaScript a model writes: untyped parameters, errors caught and read, feature tests, values that may be missing", () => {
    const cell = [
      "function total(items) { return items.reduce((sum, item) => sum + item.price, 0) }",
      "try { total(null) } catch (error) { print(error.message) }",
      "if (typeof fetch === 'function' || typeof process !== 'undefined') print('impossible')",
      "const seen = new Map<string, string[]>()",
      "if (!seen.has('a')) seen.set('a', [])",
      "seen.get('a').push('x')",
      "const found = [1, 2, 3].find((n) => n > 1)",
      "print(found.toFixed(1))",
      "exit('done')",
      "print('never runs, and that is not an error')",
    ].join("\n");
    assert.deepEqual(errors(cell), []);
  });

  it("checks a cell written in JavaScript as JavaScript: open objects, fields made by constructors, calls still checked", () => {
    const cell = [
      "const totals = {}",
      "totals.meetings = 3",
      "class Counter { constructor() { this.count = 0 } bump() { this.count++; return this } }",
      "const counter = new Counter().bump()",
      "print(totals.meetings, counter.count.toFixed(0))",
    ].join("\n");
    assert.deepEqual(errors(cell), []);
    assert.deepEqual(errors(`${cell}\nawait findEmptySlot(calendar, 'tomorrow')\ncounter.reset()`), [
      "6: (TS2345) Argument of type 'string' is not assignable to parameter of type 'Date'.",
      "7: (TS2339) Property 'reset' does not exist on type 'Counter'.",
    ]);
    assert.equal(errors("const totals: { meetings?: number } = {}\ntotals.rooms = 1").length, 1, "a cell with types is TypeScript");
  });

  it("keeps what a JavaScript cell declared in JavaScript for later cells", () => {
    const input = {
      cells: ["class Counter { constructor() { this.count = 0 } }\nconst counter = new Counter()"],
      variables: [definition("Counter"), value("counter", { kind: "instance", variable: "Counter" })],
    };
    assert.deepEqual(errors("const next: number = counter.count + 1", input), []);
  });

  it("takes a name the cell assigns without declaring it as a new workspace variable, as a sloppy script does", () => {
    assert.deepEqual(errors("total = 0\nfor (const n of [1, 2]) total += n\nprint(total)"), []);
    assert.deepEqual(errors("print(missing)\nsum = 1"), ["1: (TS2304) Cannot find name 'missing'."]);
  });

  it("finds names the workspace does not have", () => {
    assert.deepEqual(errors("const data = await fetch('https://example.com')"), ["1: (TS2304) Cannot find name 'fetch'."]);
    assert.deepEqual(errors("print(process.env.HOME)"), ["1: (TS2591) Cannot find name 'process'."], "without advice to install type definitions");
  });

  it("knows the workspace's own globals", () => {
    assert.deepEqual(errors([
      "await sleep(10); await until(new Date()); const message = await waitForMessage()",
      "const [a, b] = await getAll([sleep(1), Promise.resolve(2)]); b.toFixed()",
      "console.log(new URL('https://x.test/a').pathname, new TextEncoder().encode('x').length, structuredClone({ a: 1 }).a, performance.now())",
      "const timer = setTimeout(() => print('later'), 5); clearTimeout(timer)",
    ].join("\n")), []);
    assert.deepEqual(errors("await sleep('5 minutes')"), ["1: (TS2345) Argument of type 'string' is not assignable to parameter of type 'number'."]);
  });

  it("types functions and classes of earlier cells by their declarations, and knows their type aliases", () => {
    const earlier = {
      cells: [
        "type Slot = { start: Date; minutes: number }\nfunction minutesOf(slot: Slot): number { return slot.minutes }",
        "class Tracker { seen: string[] = []; add(name: string) { this.seen.push(name) } }\nconst tracker = new Tracker()",
        "let best: Slot | null = null",
      ],
      variables: [
        value("calendar", named("Calendar")), definition("minutesOf"), definition("Tracker"),
        value("tracker", { kind: "instance", variable: "Tracker" }), value("best", { kind: "any" }),
      ],
    };
    assert.deepEqual(errors("const slot: Slot = { start: new Date(), minutes: 30 }\nminutesOf(slot)\ntracker.add('x')\nbest = slot", earlier), []);
    assert.deepEqual(errors("minutesOf({ start: new Date() })\ntracker.add(1)\nbest = 'x'", earlier), [
      "1: (TS2345) Argument of type '{ start: Date; }' is not assignable to parameter of type 'Slot'.\n  Property 'minutes' is missing in type '{ start: Date; }' but required in type 'Slot'.",
      "2: (TS2345) Argument of type 'number' is not assignable to parameter of type 'string'.",
      "3: (TS2322) Type 'string' is not assignable to type 'Slot'.",
    ]);
  });

  it("takes the latest declaration of a name, and a value whose source is lost as any", () => {
    const input = {
      cells: ["function f(n: number) { return n }", "function f(s: string) { return s }"],
      variables: [definition("f"), { name: "g", type: { holds: "lost" as const, shape: { kind: "any" as const } } }],
    };
    assert.deepEqual(errors("f('x').toUpperCase()\ng.anything(1, 2)", input), []);
    assert.equal(errors("f(1)", input).length, 1);
  });

  it("leaves a cell that does not parse to the cell compiler", () => {
    assert.deepEqual(check("const = 1"), { errors: [], syntax: true });
  });

  it("leaves imports and exports to the cell compiler, whose SyntaxError says the workspace has none", () => {
    for (const cell of ["const fs = await import('node:fs')", "import { readFileSync } from 'node:fs'", "export const answer = 42", "const x = 1\nexport { x }"]) {
      assert.deepEqual(check(cell), { errors: [], syntax: true }, cell);
    }
  });

  it("does not judge a cell by declarations that do not parse", () => {
    const output = check("calendar.nothing()", { declarations: "declare class Calendar { owner: }" });
    assert.deepEqual(output.errors, []);
    assert.match(output.unchecked ?? "", /the job's declarations do not parse/);
  });
});
