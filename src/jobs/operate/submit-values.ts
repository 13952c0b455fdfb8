/**
 * @module
 * Checks and encodes what a job is submitted with: initial variables (any value the workspace codec keeps,
 * host objects only when they are bindings) and JSON parameters. Anything that cannot be stored is refused
 * at submit time with the name of the variable, never lost later.
 */
import type { JsonValue, VariableRow } from "../../store/store.ts";
import { isTool, type Tool } from "../../tools/tool.ts";
import { HandleTable, classNameOf } from "../../workspace/membrane/handle-table.ts";
import { createHostCodec } from "../../workspace/membrane/host-codec.ts";
import { HostReferences, type ExposedClasses } from "../../workspace/membrane/host-references.ts";
import { isIdentifier } from "../../tools/is-identifier.ts";

/** What initial variables may refer to. */
export interface SubmitScope {
  bindings: ReadonlyMap<string, unknown>;
  tools: readonly Tool[];
  exposed?: ExposedClasses;
}

/** A short type name for `{shared_var_names}`: `Date`, `Calendar`, `string`, `Array`. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "function") return "function";
  if (typeof value !== "object") return typeof value;
  if (Array.isArray(value)) return "Array";
  if (isTool(value)) return "tool";
  const proto = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return "object";
  return classNameOf(value);
}

/** Encodes the initial variables, or throws a `TypeError` (starting with `call`) naming each one that cannot be stored. */
export function encodeInitialVariables(
  vars: Readonly<Record<string, unknown>>,
  scope: SubmitScope,
  call = "submitJob",
): { rows: VariableRow[]; types: Array<{ name: string; type: string }> } {
  const references = new HostReferences(scope);
  const codec = createHostCodec({
    table: new HandleTable(),
    describeHandle: (value) => references.describe(value),
    resolveKey: (key) => references.resolve(key),
  });
  for (const name of Object.keys(vars)) {
    if (!isIdentifier(name)) throw new TypeError(`${call}: variable name '${name}' is not an identifier`);
  }
  const entries = Object.entries(vars);
  const { texts, problems } = codec.encodeAll(entries, "persist");
  if (problems.length) {
    const detail = problems.map((problem) => `${problem.path}: ${problem.reason}`).join("; ");
    throw new TypeError(
      `${call}: these variables cannot be stored: ${detail}. Pass host objects in Statek.open({ bindings }) ` +
        "or the agent's context so they persist by name, or expose their class with statek.expose(Class, { id, load }).",
    );
  }
  return {
    rows: entries.map(([name], position) => ({ name, blob: texts[name]!, position })),
    types: entries.map(([name, value]) => ({ name, type: typeName(value) })),
  };
}

/** Checks that job parameters are JSON values (a `TypeError` names the first that is not). */
export function toJsonParams(params: Readonly<Record<string, unknown>>): Record<string, JsonValue> {
  for (const [key, value] of Object.entries(params)) checkJson(value, `params.${key}`, "submitJob");
  return JSON.parse(JSON.stringify(params));
}

/** Throws a `TypeError` naming `call` and the path when `value` is not JSON data. */
export function checkJson(value: unknown, path: string, call: string): asserts value is JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number" && Number.isFinite(value)) return;
  if (Array.isArray(value)) return value.forEach((item, index) => checkJson(item, `${path}[${index}]`, call));
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) checkJson(item, `${path}.${key}`, call);
    return;
  }
  throw new TypeError(`${call}: ${path} is not a JSON value (strings, numbers, booleans, null, arrays, plain objects)`);
}
