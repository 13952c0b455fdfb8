/**
 * Provider tool payloads: JSON Schema from Zod, the strict and plain profiles, live objects as variable
 * names. `§10.N` in a test name numbers the scenario it covers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { registerEnum } from "../tools/enum-members.ts";
import { tool } from "../tools/tool.ts";
import { payloadProfileFor, toolPayload } from "./tool-payload.ts";

class Calendar {}
class Level {
  static readonly LOW = new Level();
  static readonly HIGH = new Level();
}
registerEnum(Level);

const runCode = tool({ name: "runCode", description: "Run code.\n\nDetails here.", params: z.object({ code: z.string().describe("The code.") }), run: () => 1 });
const findEmptySlot = tool({
  name: "findEmptySlot",
  description: "Find an available calendar slot after a given time.",
  params: z.object({
    calendar: z.instanceof(Calendar).describe("Calendar object to search."),
    after: z.date().describe("Earliest acceptable start time."),
    durationMinutes: z.number().int().default(30).describe("Required meeting length."),
  }),
  returns: "The first free slot, or null.",
  run: () => null,
});

describe("tool payloads (plain profile)", () => {
  it("§10.87 name, description (with what it returns), an object schema; only parameters without defaults required", () => {
    assert.deepEqual(toolPayload(runCode), {
      name: "runCode",
      description: "Run code.\n\nDetails here.",
      inputSchema: { type: "object", properties: { code: { type: "string", description: "The code." } }, required: ["code"] },
    });
    const none = toolPayload(tool({ name: "ping", description: "Ping.", run: () => 1 }));
    assert.deepEqual(none.inputSchema, { type: "object", properties: {} });
    const allDefaults = toolPayload(tool({ name: "p", description: "d", params: z.object({ n: z.number().default(1).describe("n") }), run: () => 1 }));
    assert.equal(allDefaults.inputSchema.required, undefined);
  });

  it("§10.88 types: numbers, booleans, arrays, records, nullable, unions, enums; dates as ISO strings; live objects as variable names", () => {
    const t = tool({
      name: "many",
      description: "d",
      params: z.object({
        i: z.number().int().describe("i"), f: z.number().describe("f"), b: z.boolean().describe("b"),
        list: z.array(z.string()).describe("l"), map: z.record(z.string(), z.number()).describe("m"),
        maybe: z.string().nullable().describe("n"), either: z.union([z.string(), z.number()]).describe("u"),
        level: z.instanceof(Level).describe("lv"), severity: z.enum({ INFO: "info", ERROR: "error" }).describe("s"),
        when: z.date().describe("w"), calendar: z.instanceof(Calendar).describe("c"),
      }),
      run: () => 1,
    });
    const properties = toolPayload(t).inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.equal(properties.i!.type, "integer");
    assert.equal(properties.f!.type, "number");
    assert.equal(properties.b!.type, "boolean");
    assert.deepEqual(properties.list, { type: "array", items: { type: "string" }, description: "l" });
    assert.equal(properties.map!.type, "object");
    assert.deepEqual(properties.maybe!.type, ["string", "null"]);
    assert.deepEqual(properties.either!.type, ["string", "number"]);
    assert.deepEqual(properties.level, { description: "lv", type: "string", enum: ["LOW", "HIGH"] });
    assert.deepEqual(properties.severity, { description: "s", type: "string", enum: ["INFO", "ERROR"] });
    assert.deepEqual(properties.when, { description: "w", type: "string", format: "date-time" });
    assert.deepEqual(properties.calendar, { description: "c (the name of a workspace variable holding a Calendar)", type: "string" });
  });

  it("§10.89 descriptions are the model's variant", () => {
    const t = tool({ name: "v", description: "VARIANTS/:Internal./TOOL:For the model.", params: z.object({ x: z.string().describe("VARIANTS/:raw/TOOL:nice") }), run: () => 1 });
    const payload = toolPayload(t);
    assert.equal(payload.description, "For the model.");
    assert.equal((payload.inputSchema.properties as Record<string, { description: string }>).x!.description, "nice");
  });
});

describe("tool payloads (strict profile)", () => {
  it("every property required, optional ones nullable, no additional properties, no defaults", () => {
    const payload = toolPayload(findEmptySlot, "strict");
    assert.equal(payload.strict, true);
    assert.deepEqual(payload.inputSchema, {
      type: "object",
      properties: {
        calendar: { description: "Calendar object to search. (the name of a workspace variable holding a Calendar)", type: "string" },
        after: { description: "Earliest acceptable start time.", type: "string", format: "date-time" },
        durationMinutes: { type: ["integer", "null"], minimum: -9007199254740991, maximum: 9007199254740991, description: "Required meeting length." },
      },
      required: ["calendar", "after", "durationMinutes"],
      additionalProperties: false,
    });
  });

  it("nested objects too; an optional enum becomes anyOf with null; a record falls back to plain", () => {
    const t = tool({
      name: "nested",
      description: "d",
      params: z.object({
        slot: z.object({ start: z.date(), note: z.string().optional() }).describe("s"),
        level: z.enum({ A: "a" }).optional().describe("l"),
      }),
      run: () => 1,
    });
    const schema = toolPayload(t, "strict").inputSchema as Record<string, any>;
    assert.deepEqual(schema.properties.slot.required, ["start", "note"]);
    assert.equal(schema.properties.slot.additionalProperties, false);
    assert.deepEqual(schema.properties.slot.properties.note.type, ["string", "null"]);
    assert.deepEqual(schema.properties.level, { description: "l", anyOf: [{ type: "string", enum: ["A"] }, { type: "null" }] });
    const record = tool({ name: "r", description: "d", params: z.object({ m: z.record(z.string(), z.number()).describe("m") }), run: () => 1 });
    const fallback = toolPayload(record, "strict");
    assert.equal(fallback.strict, false);
    assert.deepEqual(fallback.inputSchema, toolPayload(record).inputSchema);
  });

  it("the profile: TOOLS_SCHEMA metadata wins, else strict for OpenAI's provider and plain for the others", () => {
    assert.equal(payloadProfileFor("openai.responses"), "strict");
    assert.equal(payloadProfileFor("openai.chat"), "strict");
    assert.equal(payloadProfileFor("openai"), "strict");
    assert.equal(payloadProfileFor("anthropic.messages"), "plain");
    assert.equal(payloadProfileFor("openrouter.chat"), "plain");
    assert.equal(payloadProfileFor("openai.chat", { TOOLS_SCHEMA: "plain" }), "plain");
    assert.equal(payloadProfileFor("scripted", { TOOLS_SCHEMA: " Strict " }), "strict");
    assert.throws(() => payloadProfileFor("x", { TOOLS_SCHEMA: "loose" }), { name: "TypeError", message: 'TOOLS_SCHEMA metadata must be "strict" or "plain" (got "loose")' });
  });
});
