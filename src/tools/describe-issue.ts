/**
 * @module
 * Puts a schema validation issue into the words of a {@link ValidationError}: which parameter, what was
 * expected, and the value received.
 */
import type { z } from "zod";
import { llmRepr } from "./llm-repr.ts";
import { ValidationError } from "../errors/validation-error.ts";
import type { Tool } from "./tool.ts";

const ARTICLE = /^[aeiou]/i;

function withArticle(word: string): string {
  return `${ARTICLE.test(word) ? "an" : "a"} ${word}`;
}

function expectation(issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "undefined" ? "expected no value" : `expected ${withArticle(String(issue.expected))}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "custom": {
      const cls = (schema as { _zod?: { bag?: { Class?: Function } } } | undefined)?._zod?.bag?.Class;
      if (cls?.name) return `expected ${withArticle(cls.name)}`;
      return issue.message === "Invalid input" ? "the value is not valid" : issue.message;
    }
    default:
      return issue.message.replace(/^Invalid input: /, "").replace(/^[A-Z][a-z ]+: /, "");
  }
}

/** The {@link ValidationError} for the first issue of a failed parse of `args` against `tool.params`. */
export function validationErrorFor(tool: Tool, args: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): ValidationError {
  const issue = issues[0]!;
  const parameter = issue.path.length ? String(issue.path[0]) : undefined;
  const schema = parameter ? (tool.params.shape[parameter] as z.ZodType | undefined) : undefined;
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
