/**
 * @module
 * `llmRepr`: how values are shown to the model — in echoes, `print`, tool results and errors. Compact,
 * TypeScript-flavoured, truncated: `[1,2,3, …] (50 items total)`, `{title:"Weekly planning",minutes:30}`,
 * `2026-03-10T15:00:00Z`. An object can choose its own text with a `[llmRepr]()` method (in TypeScript,
 * `[llmRepr.symbol]()`); for classes the application does not own, a formatter registered once with
 * {@link registerFormatter} (used everywhere values are shown: echoes, `print`, tool results) or passed to
 * one call.
 *
 * Members named `_x` of class instances are private by convention: agent code cannot read
 * them through a handle, so they are not shown either. Plain records show every key.
 */
import { isTool } from "./is-tool.ts";
import { isIdentifier } from "./is-identifier.ts";
import { DEFAULT_REGISTRIES, currentRegistries } from "../registries/registries.ts";

const LLM_REPR: unique symbol = Symbol.for("statek.llmRepr") as never;

/** A formatter for instances of one class. */
export type LlmFormatter = (value: any) => string;

/** Options of {@link llmRepr}. */
export interface LlmReprOptions {
  /** Items shown per array, map, set or object before truncating. @default 25 */
  maxItems?: number;
  /** Nesting depth shown in full; deeper objects are summarised. @default 3 */
  maxDepth?: number;
  /** Strings are shown raw at the top level (as `print` does) instead of quoted. @default false */
  rawStrings?: boolean;
  /** Formatters by class, tried before the default form. */
  formatters?: ReadonlyMap<Function, LlmFormatter>;
  /**
   * Whether member `member` of class instance `object` may be shown; by default every public one is. The
   * workspace passes the member policy of `statek.expose`, so formatting never shows what the policy hides.
   */
  visible?: (object: object, member: string) => boolean;
}

/** Marker for values that only have a description (a closure or Promise printed from agent code). */
export class OpaqueValue {
  /** What the value was, e.g. `function f` or `a Promise`. */
  readonly description: string;
  constructor(description: string) {
    this.description = description;
  }
  [LLM_REPR](): string {
    return `[${this.description}]`;
  }
}


function formatDate(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) return "Invalid Date";
  return date.toISOString().replace(".000Z", "Z");
}

function formatKey(key: string): string {
  return isIdentifier(key) ? key : JSON.stringify(key);
}

function className(value: object): string | undefined {
  const proto = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return undefined;
  const name = proto?.constructor?.name;
  return typeof name === "string" && name ? name : "Object";
}

function truncated(items: string[], total: number, open: string, close: string): string {
  return total > items.length ? `${open}${items.join(",")}, …${close} (${total} items total)` : `${open}${items.join(",")}${close}`;
}

function format(value: unknown, options: Required<Omit<LlmReprOptions, "formatters" | "visible">> & LlmReprOptions, depth: number, seen: Set<object>): string {
  switch (typeof value) {
    case "string": return depth === 0 && options.rawStrings ? value : JSON.stringify(value);
    case "number": return Object.is(value, -0) ? "-0" : String(value);
    case "bigint": return `${value}n`;
    case "boolean": return String(value);
    case "undefined": return "undefined";
    case "symbol": return value.toString();
    case "function": {
      const custom = (value as unknown as Record<symbol, unknown>)[LLM_REPR];
      if (typeof custom === "function") return String(custom.call(value));
      return value.name ? `[Function ${value.name}]` : "[Function]";
    }
  }
  if (value === null) return "null";
  const object = value as object;
  const custom = (object as Record<symbol, unknown>)[LLM_REPR];
  if (typeof custom === "function") return String(custom.call(object));
  const formatter = (options.formatters && findFormatter(object, options.formatters)) || currentRegistries().formatterFor(object);
  if (formatter) return formatter(object);
  // A tool by its name, not its schema and implementation.
  if (isTool(object)) return `[tool ${object.name}]`;
  if (object instanceof Date) return formatDate(object);
  if (object instanceof RegExp) return String(object);
  if (object instanceof Error) return `${object.name}: ${object.message}`;
  if (seen.has(object)) return "[Circular]";
  const limit = options.maxItems;
  if (depth >= options.maxDepth) return summary(object);
  seen.add(object);
  try {
    const inner = (item: unknown) => format(item, options, depth + 1, seen);
    if (Array.isArray(object)) return truncated(object.slice(0, limit).map(inner), object.length, "[", "]");
    if (object instanceof Map) {
      const items = [...object].slice(0, limit).map(([k, v]) => `${inner(k)}=>${inner(v)}`);
      return truncated(items, object.size, "Map{", "}");
    }
    if (object instanceof Set) return truncated([...object].slice(0, limit).map(inner), object.size, "Set{", "}");
    if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
      const items = Array.from(object as unknown as ArrayLike<number | bigint>).slice(0, limit).map(inner);
      return truncated(items, (object as unknown as ArrayLike<unknown>).length, `${object.constructor.name}[`, "]");
    }
    const name = className(object);
    const visible = options.visible;
    if (name && hasOwnToString(object) && (!visible || visible(object, "toString"))) return String(object);
    const keys = name ? Object.keys(object).filter((key) => !key.startsWith("_") && (!visible || visible(object, key))) : Object.keys(object);
    const items = keys.slice(0, limit).map((key) => `${formatKey(key)}:${inner((object as Record<string, unknown>)[key])}`);
    return truncated(items, keys.length, `${name ? `${name} ` : ""}{`, "}");
  } finally {
    seen.delete(object);
  }
}

function summary(object: object): string {
  if (Array.isArray(object)) return `<Array of ${object.length} items>`;
  if (object instanceof Map || object instanceof Set) return `<${object.constructor.name} of ${object.size} items>`;
  return `<${className(object) ?? "Object"}>`;
}

function hasOwnToString(object: object): boolean {
  for (let proto = Object.getPrototypeOf(object); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, "toString")) return true;
  }
  return false;
}

/**
 * Registers how instances of `cls` (and its subclasses) are shown to the model, wherever values are shown:
 * echoes, `print`, tool results — in every `Statek` of the process (`Statek.open({ formatters })` registers for
 * one instance, and wins). For classes you own, a `[llmRepr.symbol]()` method does the same. A later
 * registration for the same class replaces the earlier one.
 *
 * @example
 * ```ts
 * registerFormatter(Temporal.PlainDate, (date) => date.toString());
 * ```
 */
export function registerFormatter<T>(cls: abstract new (...args: any[]) => T, formatter: (value: T) => string): void {
  if (typeof cls !== "function" || typeof formatter !== "function") throw new TypeError("registerFormatter: expected a class and a function");
  DEFAULT_REGISTRIES.setFormatter(cls, formatter as LlmFormatter);
}

function findFormatter(object: object, formatters: ReadonlyMap<Function, LlmFormatter>): LlmFormatter | undefined {
  for (const [cls, formatter] of formatters) if (object instanceof cls) return formatter;
  return undefined;
}

/**
 * Formats a value for the model.
 *
 * @example
 * ```ts
 * llmRepr([1, 2, 3]);                               // "[1,2,3]"
 * llmRepr(Array.from({ length: 50 }, (_, i) => i + 1), { maxItems: 3 }); // "[1,2,3, …] (50 items total)"
 * class Slot { [llmRepr.symbol]() { return "Slot(15:00)"; } }
 * llmRepr(new Slot());                              // "Slot(15:00)"
 * ```
 */
function llmReprFunction(value: unknown, options: LlmReprOptions = {}): string {
  const resolved = { maxItems: 25, maxDepth: 3, rawStrings: false, ...options };
  return format(value, resolved, 0, new Set());
}

/**
 * {@link llmReprFunction} plus `llmRepr.symbol`, the well-known symbol of the custom-representation method.
 * In JavaScript `llmRepr` itself also works as the computed key (`[llmRepr]() {…}`), because it converts to
 * that symbol.
 */
export const llmRepr = Object.assign(llmReprFunction, {
  [Symbol.toPrimitive]: () => LLM_REPR,
}) as unknown as typeof llmReprFunction & { readonly symbol: typeof LLM_REPR };
Object.defineProperty(llmRepr, "symbol", { value: LLM_REPR, enumerable: true });
