import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { z } from "zod";
import { NO_DESCRIPTION, paramsFromJsonSchema, toSchemaArguments } from "./json-schema-params.ts";

describe("paramsFromJsonSchema", () => {
  it("converts each property, keeps descriptions, makes identifiers of other names and maps them back", () => {
    const { params, propertyOf } = paramsFromJsonSchema({
      type: "object",
      properties: { "user-id": { type: "string", description: "Who." }, ctx: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
      required: ["user-id"],
      additionalProperties: false,
    }, "t");
    assert.deepEqual(Object.keys(params.shape), ["user_id", "ctx_", "tags"]);
    assert.equal((params.shape.user_id as z.ZodType).description, `Who. (the server's "user-id")`);
    assert.equal((params.shape.tags as z.ZodType).description, NO_DESCRIPTION);
    assert.equal(params.safeParse({ user_id: "u1", ctx_: 2 }).success, true);
    assert.equal(params.safeParse({ ctx_: 2 }).success, false, "required stays required");
    assert.equal(params.safeParse({ user_id: "u1", ctx_: 2.5 }).success, false, "integer is checked");
    assert.equal(params.safeParse({ user_id: "u1", other: 1 }).success, false, "additionalProperties: false is kept");
    assert.deepEqual(toSchemaArguments({ user_id: "u1", ctx_: 2, tags: undefined }, propertyOf), { "user-id": "u1", ctx: 2 });
  });

  it("resolves local references, in $defs and in draft 7's definitions", () => {
    for (const [key, ref] of [["$defs", "#/$defs/point"], ["definitions", "#/definitions/point"]] as const) {
      const { params } = paramsFromJsonSchema({
        type: "object",
        [key]: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
        properties: { at: { $ref: ref, description: "Where." } },
        required: ["at"],
      }, "t");
      assert.equal(params.safeParse({ at: { x: 1 } }).success, true, key);
      assert.equal(params.safeParse({ at: { x: "1" } }).success, false, key);
    }
  });

  it("accepts any value for a property Zod cannot express, and says so", () => {
    const { params, unchecked } = paramsFromJsonSchema({
      type: "object",
      properties: { odd: { if: { type: "string" }, then: { minLength: 2 }, description: "Odd." } },
    }, "t");
    assert.match(unchecked.get("odd")!, /Conditional schemas/);
    assert.equal((params.shape.odd as z.ZodType).description, "Odd. (any value: its schema could not be checked here)");
    assert.equal(params.safeParse({ odd: 5 }).success, true);
  });

  it("refuses what is not an object's schema, naming the tool", () => {
    assert.throws(() => paramsFromJsonSchema("nope", "tool 'x'"), /tool 'x': the input schema must be a JSON Schema object, got a string/);
    assert.throws(() => paramsFromJsonSchema({ type: "string" }, "tool 'x'"), /must describe an object \(type "object"\), got type "string"/);
    assert.throws(() => paramsFromJsonSchema({ type: "object", properties: [] }, "tool 'x'"), /properties must be an object, got an array/);
  });
});
