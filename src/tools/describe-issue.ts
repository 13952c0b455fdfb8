/**
 * @module
 * Puts a schema validation issue into the words of a {@link ValidationError}: which parameter, what was
 * expected, and the value received.
 */
import type { z } from "zod";
import { llmRepr } from "./llm-repr.ts";
import { ValidationError } from "../errors/validation-error.ts";
import { alternativesOf, instanceClassOf, schemaDef, schemaType } from "./schema-shape.ts";
import type { Tool } from "./tool.ts";
import { withArticle } from "./with-article.ts";

function expectation(issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "undefined" ? "expected no value" : `expected ${withArticle(String(issue.expected))}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "custom": {
      const cls = schema && instanceClassOf(schema);
      if (cls?.name) return `expected ${withArticle(cls.name)}`;
      return issue.message === "Invalid input" ? "the value is not valid" : issue.message;
    }
    default:
      return issue.message.replace(/^Invalid input: /, "").replace(/^[A-Z][a-z ]+: /, "");
  }
}

// The schema a nested issue path points into (object keys and array indexes), when it can be followed.
function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  for (const key of path) {
    if (!schema) return undefined;
    const alternatives = alternativesOf(schema);
    const object = alternatives.find((alternative) => schemaType(alternative) === "object");
    const array = alternatives.find((alternative) => schemaType(alternative) === "array");
    if (typeof key === "number" && array) schema = schemaDef(array).element as z.ZodType;
    else if (object) schema = (schemaDef(object).shape as Record<string, z.ZodType>)[String(key)];
    else return undefined;
  }
  return schema === root ? undefined : schema;
}

/** The {@link ValidationError} for the first issue of a failed parse of `args` against `tool.params`. */
export function validationErrorFor(tool: Tool, args: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): ValidationError {
  const issue = issues[0]!;
  const parameter = issue.path.length ? String(issue.path[0]) : undefined;
  const schema = schemaAt(tool.params, issue.path);
  let received: unknown = args;
  for (const key of issue.path) received = received == null ? undefined : (received as Record<PropertyKey, unknown>)[key as PropertyKey];
  const missing = received === undefined && parameter !== undefined && !(parameter in args);
  return new ValidationError({
    toolName: tool.name,
    parameter: issue.path.map(String).join(".") || undefined,
    expected: missing ? `missing required argument (${expectation(issue, schema)})` : expectation(issue, schema),
    received: missing ? undefined : llmRepr(received, { maxItems: 5, maxDepth: 1 }),
  });
}
