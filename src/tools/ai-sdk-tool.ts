/**
 * @module
 * Tools written for the AI SDK (`tool({ description, inputSchema, execute })` from `ai`) as STATEK tools, so an
 * `Agent` takes them as they are — alone in a record, as `generateText({ tools })` does, since an AI SDK tool
 * has no name of its own. The input schema is used for validation, provider payloads and the declarations the
 * model reads: a Zod 4 object schema as it is; a Standard Schema or `jsonSchema()` through its JSON Schema
 * (`json-schema-params.ts`), with the schema's own `validate` run on the arguments before `execute`, so its
 * transforms apply. The AI SDK is not a dependency: its shapes are declared here, by what STATEK reads.
 */
import { z } from "zod";
import { ValidationError } from "../errors/validation-error.ts";
import { NO_DESCRIPTION, paramsFromJsonSchema, toSchemaArguments } from "./json-schema-params.ts";
import { isPlainObject } from "./is-plain-object.ts";
import { isTool, tool, type Tool, type ToolParams } from "./tool.ts";
import { kindOf } from "./with-article.ts";
import { errorMessage } from "../errors/error-text.ts";

/** The options an AI SDK tool's `execute` receives (the parts STATEK can give). */
export interface AiSdkToolCallOptions {
  /** The call's id: STATEK's idempotency key of the call (`jobId:cell:seq`). */
  toolCallId: string;
  /** Always empty: agent code, not a chat transcript, is what calls a tool here. */
  messages: unknown[];
  abortSignal: AbortSignal;
  /** Always `{}`: STATEK jobs give tools their context through `ctx`, not a context schema. */
  context: Record<string, never>;
}

/**
 * An AI SDK tool, as `tool()` from `ai` returns it — declared by the fields STATEK reads, so any version whose
 * tools have this shape works.
 */
export interface AiSdkTool {
  type?: string;
  // The parameters are `any` so that every version's tools are assignable (their option types are their own);
  // STATEK calls them with what AiSdkToolCallOptions describes.
  description?: string | ((options: any) => string);
  title?: string;
  inputSchema?: unknown;
  execute?: (input: any, options: any) => unknown;
  needsApproval?: unknown;
}

/** What `new Agent({ tools })` takes: STATEK tools, or a record of STATEK and AI SDK tools by name. */
export type AgentTools = readonly Tool[] | Readonly<Record<string, Tool | AiSdkTool>>;

/** True for an object shaped like an AI SDK tool (an `inputSchema` or an `execute`, and no STATEK kind). */
export function isAiSdkTool(value: unknown): value is AiSdkTool {
  return isPlainObject(value) && !isTool(value) && ("inputSchema" in value || typeof value.execute === "function");
}

/** The tools of `new Agent({ tools })` as STATEK tools; a `TypeError` starting with `label` for anything else. */
export function agentTools(tools: AgentTools | undefined, label: string): Tool[] {
  if (tools === undefined) return [];
  if (Array.isArray(tools)) {
    return tools.map((candidate: unknown, index) => {
      if (isTool(candidate)) return candidate;
      if (isAiSdkTool(candidate)) {
        throw new TypeError(`${label}: tools[${index}] is an AI SDK tool, which has no name: pass the tools as a record ({ weather: tool({ … }) }), as generateText takes them`);
      }
      throw new TypeError(`${label}: every entry of tools must be made with tool() (got ${kindOf(candidate)})`);
    });
  }
  if (!isPlainObject(tools)) throw new TypeError(`${label}: tools must be an array of tools or a record of them by name, got ${kindOf(tools)}`);
  return Object.entries(tools).map(([name, candidate]) => {
    if (isTool(candidate)) {
      if (candidate.name !== name) throw new TypeError(`${label}: tools.${name} holds tool '${candidate.name}'; use the tool's own name as its key`);
      return candidate;
    }
    if (isAiSdkTool(candidate)) return fromAiSdkTool(name, candidate, `${label}: tools.${name}`);
    throw new TypeError(`${label}: tools.${name} must be made with tool() from statek or from ai (got ${kindOf(candidate)})`);
  });
}

/** The outcome of a schema's own validation. */
type Checked = { ok: true; value: unknown } | { ok: false; path: readonly PropertyKey[]; message: string };

/** What STATEK makes of an AI SDK input schema. */
interface ConvertedSchema {
  params: ToolParams;
  propertyOf?: ReadonlyMap<string, string>;
  validate?: (value: unknown) => Promise<Checked>;
}

const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/**
 * One AI SDK tool as a STATEK tool named `name`. Throws a `TypeError` starting with `label` for a tool STATEK
 * cannot run: a provider tool, one without `execute`, one that needs approval (run it through STATEK's own
 * approval instead), or a schema without a JSON Schema.
 */
export function fromAiSdkTool(name: string, candidate: AiSdkTool, label: string): Tool {
  if (candidate.type === "provider") throw new TypeError(`${label}: a provider tool runs at the provider, not in a job; STATEK cannot call it`);
  const execute = candidate.execute;
  if (typeof execute !== "function") throw new TypeError(`${label}: the AI SDK tool has no execute function, so agent code could not call it`);
  if (candidate.needsApproval !== undefined && candidate.needsApproval !== false) {
    throw new TypeError(`${label}: needsApproval is not carried over from AI SDK tools; wrap the call in a STATEK tool that asks for approval`);
  }
  const schema = convertSchema(candidate.inputSchema, label);
  const description = descriptionOf(candidate, label);
  return tool({
    name,
    description,
    params: schema.params,
    run: async (args, ctx) => {
      let input: unknown = schema.propertyOf ? toSchemaArguments(args, schema.propertyOf) : args;
      if (schema.validate) {
        const checked = await schema.validate(input);
        if (!checked.ok) {
          const first = checked.path[0];
          throw new ValidationError({ toolName: name, ...(typeof first === "string" ? { parameter: first } : {}), expected: checked.message });
        }
        input = checked.value;
      }
      const options: AiSdkToolCallOptions = { toolCallId: ctx.idempotencyKey, messages: [], abortSignal: ctx.signal, context: {} };
      const output = await execute(input, options);
      return isAsyncIterable(output) ? lastOf(output) : output;
    },
  });
}

function descriptionOf(candidate: AiSdkTool, label: string): string {
  let text: unknown = candidate.description;
  if (typeof text === "function") {
    try {
      text = text({ context: {} });
    } catch (error) {
      throw new TypeError(`${label}: its description function threw: ${errorMessage(error)}`);
    }
  }
  if (typeof text === "string" && text.trim()) return text;
  return typeof candidate.title === "string" && candidate.title.trim() ? candidate.title : NO_DESCRIPTION;
}

function convertSchema(input: unknown, label: string): ConvertedSchema {
  if (input === undefined || input === null) return { params: z.object({}) };
  if (input instanceof z.ZodObject) return zodParams(input);
  if (typeof input === "function") return convertSchema((input as () => unknown)(), label);
  if (typeof input !== "object") throw new TypeError(`${label}: inputSchema must be a Zod schema, a Standard Schema or jsonSchema(…), got ${kindOf(input)}`);
  const record = input as Record<PropertyKey, unknown>;
  if (record[AI_SDK_SCHEMA] === true) {
    const json = record.jsonSchema;
    if (typeof (json as { then?: unknown } | null)?.then === "function") {
      throw new TypeError(`${label}: its JSON Schema is a promise; await it and pass jsonSchema(schema)`);
    }
    const converted = paramsFromJsonSchema(json, label);
    const validate = record.validate;
    return {
      params: converted.params,
      propertyOf: converted.propertyOf,
      ...(typeof validate === "function" ? { validate: async (value: unknown) => fromAiSdkResult(await validate(value)) } : {}),
    };
  }
  const standard = record["~standard"] as { validate?: unknown; vendor?: unknown; jsonSchema?: { input?: unknown } } | undefined;
  if (standard && typeof standard.validate === "function") {
    const toJson = standard.jsonSchema?.input;
    if (typeof toJson !== "function") {
      throw new TypeError(`${label}: its Standard Schema (${String(standard.vendor)}) cannot give a JSON Schema; use a Zod 4 schema or jsonSchema(…) from ai`);
    }
    const converted = paramsFromJsonSchema(toJson.call(standard.jsonSchema, { target: "draft-07" }), label);
    const check = standard.validate as (value: unknown) => unknown;
    return { params: converted.params, propertyOf: converted.propertyOf, validate: async (value) => fromStandardResult(await check(value)) };
  }
  throw new TypeError(`${label}: inputSchema must be a Zod schema, a Standard Schema or jsonSchema(…), got ${kindOf(input)}`);
}

/**
 * A Zod object schema as parameters: as it is when every property is described; else with "(no description)"
 * on those that are not (`tool()` asks for one each), keeping the original to validate with when its
 * refinements do not survive `extend`.
 */
function zodParams(schema: z.ZodObject): ConvertedSchema {
  const missing = Object.entries(schema.shape).filter(([, property]) => !(property as z.ZodType).description);
  if (!missing.length) return { params: schema };
  const described = Object.fromEntries(missing.map(([key, property]) => [key, (property as z.ZodType).describe(NO_DESCRIPTION)]));
  try {
    return { params: schema.extend(described) };
  } catch {
    const params = z.looseObject({ ...schema.shape, ...described });
    return { params, validate: async (value) => fromStandardResult(await schema["~standard"].validate(value)) };
  }
}

function fromAiSdkResult(result: unknown): Checked {
  const outcome = result as { success?: unknown; value?: unknown; error?: unknown };
  if (outcome?.success === true) return { ok: true, value: outcome.value };
  const message = outcome?.error instanceof Error ? outcome.error.message : "the arguments do not match the tool's schema";
  return { ok: false, path: [], message };
}

function fromStandardResult(result: unknown): Checked {
  const outcome = result as { value?: unknown; issues?: ReadonlyArray<{ message?: unknown; path?: ReadonlyArray<unknown> }> };
  if (!outcome?.issues) return { ok: true, value: outcome?.value };
  const issue = outcome.issues[0];
  const path = (issue?.path ?? []).map((segment) => (typeof segment === "object" && segment !== null ? (segment as { key: PropertyKey }).key : segment as PropertyKey));
  return { ok: false, path, message: typeof issue?.message === "string" ? issue.message : "the arguments do not match the tool's schema" };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === "function";
}

/** A streaming `execute`'s result: its last value (what the AI SDK treats as the final output). */
async function lastOf(values: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of values) last = value;
  return last;
}
