/**
 * Argument preparation: enum names, ISO dates, live-variable binding, then
 * validation. `§10.N` in a test name numbers the scenario it covers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { registerEnum } from "./enum-members.ts";
import { prepareCall } from "./invoke-tool.ts";
import { parseIsoDate } from "./iso-date.ts";
import { tool } from "./tool.ts";

class User {
  name: string;
  constructor(name: string) {
    this.name = name;
  }
}

class Level {
  static readonly INFO = new Level("INFO");
  static readonly ERROR = new Level("ERROR");
  readonly label: string;
  constructor(label: string) {
    this.label = label;
  }
}
registerEnum(Level);

const Severity = { INFO: "info", ERROR: "error" } as const;
// What a numeric TypeScript `enum Priority { LOW, HIGH }` compiles to.
const Priority = { LOW: 0, HIGH: 1, 0: "LOW", 1: "HIGH" } as const;

function scope(vars: Record<string, unknown>) {
  return { variable: (name: string) => (Object.prototype.hasOwnProperty.call(vars, name) ? { value: vars[name] } : undefined) };
}

const sendTo = tool({
  name: "sendTo",
  description: "Send a message to a user.",
  params: z.object({ recipient: z.instanceof(User).describe("Who gets it."), message: z.string().describe("The message.") }),
  run: () => undefined,
});

const alert = tool({
  name: "alert",
  description: "Raise an alert.",
  params: z.object({ level: z.enum(Severity).describe("How bad.") }),
  run: () => undefined,
});

const date = (iso: string) => new Date(iso);

describe("argument preparation: enums", () => {
  it("§10.14 a member name becomes the member's value; the value itself passes; an unknown name is a ValidationError", () => {
    assert.deepEqual(prepareCall(alert, ["ERROR"]).args, { level: "error" });
    assert.deepEqual(prepareCall(alert, { level: "INFO" }).args, { level: "info" });
    assert.deepEqual(prepareCall(alert, ["error"]).args, { level: "error" });
    assert.throws(() => prepareCall(alert, ["INVALID"]), { name: "ValidationError", message: 'alert(level): expected one of "info", "error", got "INVALID"' });
  });

  it("numeric TypeScript enums: names, not the reverse mapping", () => {
    const prioritize = tool({ name: "prioritize", description: "d", params: z.object({ priority: z.enum(Priority).describe("p") }), run: () => 1 });
    assert.deepEqual(prepareCall(prioritize, ["HIGH"]).args, { priority: 1 });
    assert.deepEqual(prepareCall(prioritize, [0]).args, { priority: 0 });
    assert.throws(() => prepareCall(prioritize, ["1"]), { name: "ValidationError" });
  });

  it("registered enum classes: the name becomes the member object, inside optional and default wrappers too", () => {
    const raise = tool({ name: "raise", description: "d", params: z.object({ level: z.instanceof(Level).default(Level.INFO).describe("l") }), run: () => 1 });
    assert.equal(prepareCall(raise, ["ERROR"]).args.level, Level.ERROR);
    assert.equal(prepareCall(raise, []).args.level, Level.INFO);
    assert.equal(prepareCall(raise, [Level.ERROR]).args.level, Level.ERROR);
    assert.throws(() => registerEnum(class Empty {}), { message: "registerEnum(Empty): no members (pass them, or give the class static instances)" });
  });
});

describe("argument preparation: ISO dates", () => {
  const at = tool({ name: "at", description: "d", params: z.object({ when: z.date().describe("w") }), run: () => 1 });

  it("§10.19 date and date-time strings become Dates (UTC unless an offset is given)", () => {
    assert.deepEqual(prepareCall(at, ["2026-03-10"]).args, { when: date("2026-03-10T00:00:00Z") });
    assert.deepEqual(prepareCall(at, ["2026-03-10T12:30:00"]).args, { when: date("2026-03-10T12:30:00Z") });
    assert.deepEqual(prepareCall(at, ["2026-03-10T15:00:00Z"]).args, { when: date("2026-03-10T15:00:00Z") });
    assert.deepEqual(prepareCall(at, ["2026-03-10 15:00+02:00"]).args, { when: date("2026-03-10T13:00:00Z") });
    assert.throws(() => prepareCall(at, ["tomorrow"]), { name: "ValidationError", message: 'at(when): expected a date, got "tomorrow"' });
  });

  it("§10.20 unions are tried in order: a date first converts, a string first keeps the text", () => {
    const dateFirst = tool({ name: "a", description: "d", params: z.object({ v: z.union([z.date(), z.string()]).describe("v") }), run: () => 1 });
    const stringFirst = tool({ name: "b", description: "d", params: z.object({ v: z.union([z.string(), z.date()]).describe("v") }), run: () => 1 });
    assert.deepEqual(prepareCall(dateFirst, ["2026-03-10"]).args, { v: date("2026-03-10") });
    assert.deepEqual(prepareCall(dateFirst, ["soon"]).args, { v: "soon" });
    assert.deepEqual(prepareCall(stringFirst, ["2026-03-10"]).args, { v: "2026-03-10" });
    const nullable = tool({ name: "c", description: "d", params: z.object({ v: z.date().nullable().optional().describe("v") }), run: () => 1 });
    assert.deepEqual(prepareCall(nullable, ["2026-03-10T15:00:00.250Z"]).args, { v: date("2026-03-10T15:00:00.250Z") });
  });

  it("dates nested in objects and arrays are converted too (a formal call's JSON has no Date)", () => {
    const move = tool({
      name: "move",
      description: "d",
      params: z.object({ slot: z.object({ start: z.date(), end: z.date() }).describe("s"), marks: z.array(z.date()).default([]).describe("m") }),
      run: () => 1,
    });
    const input = { slot: { start: "2026-03-10T11:00:00Z", end: "2026-03-10T12:00:00Z" }, marks: ["2026-03-11"] };
    assert.deepEqual(prepareCall(move, input).args, { slot: { start: date("2026-03-10T11:00:00Z"), end: date("2026-03-10T12:00:00Z") }, marks: [date("2026-03-11")] });
    assert.equal(input.slot.start, "2026-03-10T11:00:00Z", "the caller's arguments are not changed");
  });

  it("parseIsoDate: forms it accepts and impossible dates it refuses", () => {
    assert.deepEqual(parseIsoDate("20260310"), date("2026-03-10T00:00:00Z"));
    assert.deepEqual(parseIsoDate("2026-03-10T15:00:00.123456-0130"), date("2026-03-10T16:30:00.123Z"));
    assert.deepEqual(parseIsoDate("15:30"), date("1970-01-01T15:30:00Z"), "a time alone is that time on 1970-01-01");
    assert.deepEqual(parseIsoDate("T15:30:05Z"), date("1970-01-01T15:30:05Z"));
    for (const bad of ["2026-02-30", "2026-13-01", "2026-0310", "25:00", "2026", "1530", "2026-03-10T24:00", "next week", ""]) {
      assert.equal(parseIsoDate(bad), undefined, bad);
    }
  });
});

describe("argument preparation: live-variable binding", () => {
  const user = new User("Ada");

  it("§10.15 a string naming a variable binds it where a string does not fit; the message stays literal", () => {
    assert.deepEqual(prepareCall(sendTo, ["user", "Your meeting moved to 3 PM."], scope({ user })).args, { recipient: user, message: "Your meeting moved to 3 PM." });
    assert.deepEqual(prepareCall(sendTo, { recipient: "user", message: "hello" }, scope({ user })).args.recipient, user);
  });

  it("§10.16 string parameters never bind, even when a variable has that name", () => {
    const greet = tool({ name: "greet", description: "d", params: z.object({ name: z.string().describe("n") }), run: () => 1 });
    assert.deepEqual(prepareCall(greet, ["name"], scope({ name: "something else" })).args, { name: "name" });
    const optional = tool({ name: "maybe", description: "d", params: z.object({ text: z.string().optional().describe("t") }), run: () => 1 });
    assert.deepEqual(prepareCall(optional, ["text"], scope({ text: 42 })).args, { text: "text" }, "unlike the reference, an optional string is still a string");
  });

  it("§10.17 no variable of that name, or no workspace: the string stays and validation says so", () => {
    assert.throws(() => prepareCall(sendTo, ["user", "hi"], scope({ admin: user })), { message: 'sendTo(recipient): expected a User, got "user"' });
    assert.throws(() => prepareCall(sendTo, ["user", "hi"]), { message: 'sendTo(recipient): expected a User, got "user"' });
  });

  it("(changed) a variable binds only when its value fits the parameter", () => {
    assert.throws(() => prepareCall(sendTo, ["user", "hi"], scope({ user: "not a User" })), { name: "ValidationError" });
  });

  it("§10.21 a date parameter with a non-ISO string binds a date variable", () => {
    const at = tool({ name: "at", description: "d", params: z.object({ when: z.date().describe("w") }), run: () => 1 });
    const myDate = date("2025-01-01");
    assert.deepEqual(prepareCall(at, ["myDate"], scope({ myDate })).args, { when: myDate });
  });

  it("§10.22 a class-valued parameter binds a class in scope by name; absent, the string stays", () => {
    class MemoObject {}
    const inspect = tool({ name: "inspect", description: "d", params: z.object({ what: z.custom<Function>((v) => typeof v === "function").describe("w") }), run: () => 1 });
    assert.equal(prepareCall(inspect, ["MemoObject"], scope({ MemoObject })).args.what, MemoObject);
    assert.throws(() => prepareCall(inspect, ["MemoObject"], scope({})), { name: "ValidationError" });
  });

  it("enum names win over a variable of the same name; binding happens only at the top level", () => {
    assert.deepEqual(prepareCall(alert, ["ERROR"], scope({ ERROR: "info" })).args, { level: "error" });
    const nested = tool({ name: "nested", description: "d", params: z.object({ box: z.object({ who: z.instanceof(User) }).describe("b") }), run: () => 1 });
    assert.throws(() => prepareCall(nested, [{ who: "user" }], scope({ user })), { message: 'nested(box.who): expected a User, got "user"' });
  });

  it("formal calls: null for a parameter that may be left out means left out (strict-mode providers send it)", () => {
    const find = tool({ name: "find", description: "d", params: z.object({ minutes: z.number().default(30).describe("m"), note: z.object({ text: z.string().optional() }).optional().describe("n") }), run: () => 1 });
    assert.deepEqual(prepareCall(find, { minutes: null, note: { text: null } }, { formal: true }).args, { minutes: 30, note: {} });
    assert.throws(() => prepareCall(find, { minutes: null }), { message: "find(minutes): expected a number, got null" }, "only formal calls");
  });
});
