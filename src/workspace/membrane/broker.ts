/**
 * @module
 * The broker (DESIGN.md §6.3): the one place every crossing from agent code to the host goes through —
 * property reads and writes on handles, method and function calls, tool calls, printing, `exit`, formatting
 * thrown values, and the restoring of persisted handles. It enforces the member policy, converts values with
 * the host codec, and answers in the executor's message format.
 */
import type { Codec } from "../codec/codec.ts";
import type { HostChannel } from "../executor.ts";
import type { ConsoleStream } from "../console-buffer.ts";
import { isTool, type Tool } from "../../tools/tool.ts";
import { llmRepr } from "../../tools/llm-repr.ts";
import type { HandleEntry, HandleTable } from "./handle-table.ts";
import { memberRefusal, publicKeys } from "./member-policy.ts";

/** What the broker needs from its workspace. */
export interface BrokerOptions {
  table: HandleTable;
  codec: Codec;
  /** Where printed output goes. */
  console: { push(stream: ConsoleStream, text: string): void };
  /** Calls a tool from agent code (policy, preparation, validation, logging); may return a promise. */
  callTool(tool: Tool, args: unknown[]): unknown;
  /** Records `exit(status)`. */
  exit(status: unknown): void;
  /** The host object a persisted handle key stands for, or why it cannot be restored (`path`: where it was). */
  resolveKey(key: string, path: string): { value: unknown } | { why: string };
}

type Reply = string | Promise<string>;

/** Formats values for `print` and echoes: strings raw, everything else with `llmRepr`. */
export function formatPrinted(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === "string" ? value : llmRepr(value))).join(" ");
}

/** Creates the host channel of one workspace. */
export function createBroker(options: BrokerOptions): HostChannel {
  const { table, codec } = options;
  const ok = (value: unknown): string => (value === undefined ? "{}" : JSON.stringify({ v: codec.encode(value) }));
  const fail = (error: unknown): string => {
    const name = error instanceof Error ? error.name : "Error";
    const message = error instanceof Error ? error.message : `non-error thrown: ${llmRepr(error)}`;
    return JSON.stringify({ e: { name, message } });
  };
  const settle = (result: unknown): Reply => {
    if (result && typeof (result as PromiseLike<unknown>).then === "function") {
      return Promise.resolve(result as PromiseLike<unknown>).then(ok, fail);
    }
    return ok(result);
  };
  const entryOf = (id: string): HandleEntry => {
    const entry = table.get(Number(id));
    if (!entry) throw new TypeError(`unknown handle ${id}: handles cannot be forged`);
    return entry;
  };
  const refuse = (entry: HandleEntry, prop: string): void => {
    if (isTool(entry.value)) {
      if (prop !== "name" && prop !== "description") throw new TypeError(`tool ${entry.value.name} has no member '${prop}'`);
      return;
    }
    const refusal = memberRefusal(entry.value, prop, entry.className);
    if (refusal) throw new TypeError(refusal);
  };
  const usesDefaultToString = (value: object) => (value as { toString?: unknown }).toString === Object.prototype.toString;

  const operations: Record<string, (args: string[]) => Reply> = {
    get([id, prop]) {
      const entry = entryOf(id!);
      if (prop === "toString" && usesDefaultToString(entry.value)) return JSON.stringify({ m: 1 });
      refuse(entry, prop!);
      const value = (entry.value as Record<string, unknown>)[prop!];
      return typeof value === "function" && !isTool(entry.value) ? JSON.stringify({ m: 1 }) : ok(value);
    },
    set([id, prop, text]) {
      const entry = entryOf(id!);
      refuse(entry, prop!);
      const target = entry.value as Record<string, unknown>;
      if (isTool(target) || !(prop! in target)) throw new TypeError(`cannot add property '${prop}' to ${entry.className}`);
      if (typeof target[prop!] === "function") throw new TypeError(`cannot replace method ${entry.className}.${prop}`);
      target[prop!] = codec.decode(text!);
      return "{}";
    },
    has([id, prop]) {
      const entry = entryOf(id!);
      if (isTool(entry.value)) return ok(prop === "name" || prop === "description");
      return ok(memberRefusal(entry.value, prop!, entry.className) === undefined && prop! in entry.value);
    },
    keys([id]) {
      const entry = entryOf(id!);
      return ok(isTool(entry.value) ? ["name", "description"] : publicKeys(entry.value, entry.className));
    },
    call([id, prop, text]) {
      const entry = entryOf(id!);
      const args = codec.decode(text!) as unknown[];
      if (prop === "") {
        if (isTool(entry.value)) return settle(options.callTool(entry.value, args));
        if (typeof entry.value !== "function") throw new TypeError(`${entry.className} is not a function`);
        return settle((entry.value as (...values: unknown[]) => unknown)(...args));
      }
      if (prop === "toString" && usesDefaultToString(entry.value)) return ok(llmRepr(entry.value));
      refuse(entry, prop!);
      const method = (entry.value as Record<string, unknown>)[prop!];
      if (typeof method !== "function") throw new TypeError(`${entry.className}.${prop} is not a function`);
      return settle(method.apply(entry.value, args));
    },
    print([stream, text]) {
      options.console.push(stream as ConsoleStream, formatPrinted(codec.decode(text!) as unknown[]));
      return "{}";
    },
    repr([text]) {
      return ok(llmRepr(codec.decode(text!)));
    },
    exit([text]) {
      options.exit(codec.decode(text!));
      return "{}";
    },
    resolve([key, path]) {
      const resolved = options.resolveKey(key!, path ?? key!);
      if ("why" in resolved) return JSON.stringify({ e: { name: "ReferenceError", message: resolved.why } });
      return ok(resolved.value);
    },
  };

  return (op, args) => {
    const operation = operations[op];
    if (!operation) return fail(new TypeError(`unknown host operation '${op}'`));
    try {
      return operation(args);
    } catch (error) {
      return fail(error);
    }
  };
}
