import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { describeClass } from "../docs/class-docs.ts";
import { tool, type Tool } from "../tools/tool.ts";
import { ExposedClasses } from "../workspace/membrane/exposed-classes.ts";
import { JobDeclarations, type JobScope } from "./job-declarations.ts";
import { writeShape } from "./type-shape.ts";

class Meeting {
  title: string;
  constructor(title: string) {
    this.title = title;
  }
  reschedule(to: Date) {
    return to;
  }
}

class Calendar {
  owner = "ada";
  _secret = "hidden";
  eventsFor(day: Date) {
    return [new Meeting(String(day))];
  }
  clear() {}
  static today() {
    return new Date();
  }
}
describeClass(Calendar, {
  description: "The user's calendar.",
  members: {
    owner: { description: "Whose calendar it is.", type: "string" },
    eventsFor: { description: "The meetings of a day.", type: "(day: Date): Meeting[]" },
  },
  // Documentation ACLs choose what the model is shown; they do not make a member unusable.
  acl: "-clear",
});

const Severity = { INFO: "info", ERROR: "error" } as const;

const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find a free slot.",
  params: z.object({
    calendar: z.instanceof(Calendar).describe("The calendar."),
    after: z.date().describe("Earliest start."),
    durationMinutes: z.number().default(30).describe("Length."),
  }),
  returns: z.object({ start: z.date(), meeting: z.instanceof(Meeting) }).nullable(),
  run: async () => null,
});
const log = tool({ name: "log", description: "Log.", params: z.object({ level: z.enum(Severity).describe("How bad.") }), run: async () => undefined });
const untyped = tool({ name: "untyped", description: "Returns something.", run: () => 1 });
const count = tool({ name: "count", description: "Counts.", returns: z.number(), run: () => 1 });
const secret = tool({ name: "secret", description: "Hidden.", hidden: true, run: () => 1 });

function scope(overrides: Partial<JobScope> = {}): JobScope {
  return {
    tools: [findEmptySlot, log, untyped, count, secret],
    permits: (candidate: Tool) => !candidate.hidden,
    context: {},
    bindings: new Map(),
    ...overrides,
  };
}

describe("a job's declarations", () => {
  it("declares each tool by its signature, in the positional and the named form, for checking", () => {
    const { text } = new JobDeclarations(scope());
    assert.match(text, /^declare function findEmptySlot\(calendar: Calendar, after: Date, durationMinutes\?: number\): Promise<\{ start: Date; meeting: Meeting \} \| null>;$/m);
    assert.match(text, /^declare function findEmptySlot\(args: \{ calendar: Calendar; after: Date; durationMinutes\?: number \}\): Promise<.*>;$/m);
    assert.match(text, /^declare function log\(level: "INFO" \| "ERROR" \| "info" \| "error"\): any;$/m, "an enum by its names or its values; a result not declared is any");
    assert.match(text, /^declare function untyped\(\): any;$/m);
    assert.match(text, /^declare function count\(\): number;$/m, "a synchronous tool's result is the value itself (await takes it as it is)");
  });

  it("declares a tool agent code may not call as any, so the workspace's own refusal speaks", () => {
    assert.match(new JobDeclarations(scope()).text, /^declare const secret: any;$/m);
  });

  it("declares the classes tool signatures name: a documented one closed, with its documented types", () => {
    const { text } = new JobDeclarations(scope());
    const calendar = /declare class Calendar \{[^]*?\n\}/.exec(text)?.[0] ?? "";
    assert.match(calendar, /^ {2}owner: string;$/m);
    assert.match(calendar, /^ {2}eventsFor\(day: Date\): Meeting\[\];$/m);
    assert.match(calendar, /^ {2}clear\(\.\.\.args: any\[\]\): any;$/m, "an ACL hides documentation, not the member");
    assert.match(calendar, /^ {2}static today\(\.\.\.args: any\[\]\): any;$/m);
    assert.doesNotMatch(calendar, /_secret|\[member: string\]/, "private members are not declared, and a documented class is closed");
    const meeting = /declare class Meeting \{[^]*?\n\}/.exec(text)?.[0] ?? "";
    assert.match(meeting, /^ {2}reschedule\(\.\.\.args: any\[\]\): any;$/m);
    assert.match(meeting, /^ {2}\[member: string\]: any;$/m, "an undocumented class accepts fields its constructor makes");
  });

  it("leaves out members an exposed class's policy refuses, and marks read-only ones", () => {
    const exposed = new ExposedClasses();
    exposed.register(Calendar, { deny: ["clear"], readOnly: ["owner"] });
    const calendar = /declare class Calendar \{[^]*?\n\}/.exec(new JobDeclarations(scope({ exposed })).text)?.[0] ?? "";
    assert.doesNotMatch(calendar, /clear/);
    assert.match(calendar, /^ {2}readonly owner: string;$/m);
  });

  it("declares context values: documented functions by their signature, objects by their class or structure", () => {
    const formatSlot = describeClass(function formatSlot(slot: unknown) { return String(slot); }, { description: "Formats.", type: "(slot: { start: Date }): string" });
    const { text } = new JobDeclarations(scope({
      context: { formatSlot, helper: (a: number) => a, calendar: new Calendar(), settings: { locale: "de", retries: 3 }, Meeting },
    }));
    assert.match(text, /^declare function formatSlot\(slot: \{ start: Date \}\): string;$/m);
    assert.match(text, /^declare function helper\(\.\.\.args: any\[\]\): any;$/m);
    assert.match(text, /^declare var calendar: Calendar;$/m);
    assert.match(text, /^declare var settings: \{ locale: string; retries: number; \};$/m);
    assert.doesNotMatch(text, /declare const Meeting/, "a class in the context is its own declaration");
  });

  it("types stored handles by what they refer to", () => {
    const exposed = new ExposedClasses();
    exposed.register(Meeting, { id: (meeting) => meeting.title, load: (title) => new Meeting(title) });
    const declarations = new JobDeclarations(scope({ exposed, bindings: new Map<string, unknown>([["calendar", new Calendar()], ["now", () => new Date()]]) }));
    const names = { isClass: () => false, isDeclared: () => false };
    assert.equal(writeShape(declarations.handleShape("binding:calendar"), names), "Calendar");
    assert.equal(writeShape(declarations.handleShape("binding:now"), names), "(...args: any[]) => any");
    assert.equal(writeShape(declarations.handleShape("x:Meeting:standup"), names), "Meeting");
    assert.equal(writeShape(declarations.handleShape("tool:findEmptySlot"), names), "typeof findEmptySlot");
    assert.equal(writeShape(declarations.handleShape("binding:gone"), names), "any");
  });

  it("does not declare what a workspace variable shadows, nor a class named like a built-in", () => {
    class Map {}
    const declarations = new JobDeclarations(scope({ context: { lookup: new Map() } }), new Set(["log"]));
    assert.doesNotMatch(declarations.text, /declare function log/);
    assert.doesNotMatch(declarations.text, /declare class Map/);
    assert.match(declarations.text, /^declare var lookup: any;$/m);
  });
});
