/**
 * @module
 * The broker (DESIGN.md §6.3): the one place every crossing from agent code to the host goes through —
 * property reads and writes on handles, method and function calls, tool calls, the clock and random source,
 * printing, `exit`, and the restoring of persisted handles. For each it checks the policy (the job's tool
 * access, the member policy and its exposed-class lists), converts the values with the host codec (which
 * refuses forged handles and the host values that must never cross), records the crossing in the
 * {@link CrossingJournal}, and answers in the protocol of `guest-protocol.ts`.
 */
import type { Codec } from "../codec/codec.ts";
import type { ConsoleStream } from "../console-buffer.ts";
import type { HostChannel } from "../executor.ts";
import { METHOD_REPLY, UNDEFINED_REPLY, decodeArguments, errorReply, thrownReply, valueReply } from "../guest/guest-protocol.ts";
import { isTool, type Tool } from "../../tools/tool.ts";
import { llmRepr } from "../../tools/llm-repr.ts";
import type { Crossing, CrossingJournal, CrossingOp } from "./crossing-journal.ts";
import type { HandleEntry, HandleTable } from "./handle-table.ts";
import { memberRefusal, publicKeys, writeRefusal } from "./member-policy.ts";
import type { ToolAccess } from "./tool-access.ts";

/** What the broker needs from its workspace. */
export interface BrokerOptions {
  table: HandleTable;
  /** The host codec for what crosses now (it refuses references by key). */
  codec: Codec;
  journal: CrossingJournal;
  access: ToolAccess;
  /** Where printed output goes. */
  console: { push(stream: ConsoleStream, text: string): void };
  /** Calls a tool from agent code (preparation, validation, logging, error handlers); may return a promise. */
  callTool(tool: Tool, args: unknown[]): unknown;
  /** Records a tool call that tool access refused. */
  refused(tool: Tool, args: unknown[], error: Error): void;
  /** Records `exit(status)`. */
  exit(status: unknown): void;
  /** The host object a persisted handle key stands for, or why it cannot be restored (`path`: where it was). */
  resolveKey(key: string, path: string): { value: unknown } | { why: string };
  /** The time agent code reads (`Date.now()`, `new Date()`). */
  clock(): number;
  /** The monotonic time agent code reads (`performance.now()`). @default the host's `performance.now` */
  monotonic?: () => number;
  /** A random number in [0, 1) for agent code's `Math.random()`. */
  random(): number;
}

/** Formats values for `print` and echoes: strings raw, everything else with `llmRepr`. */
export function formatPrinted(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === "string" ? value : llmRepr(value))).join(" ");
}

const MAX_RANDOM_BATCH = 1024;

/** The host side of one workspace's boundary. */
export class Broker {
  readonly #options: BrokerOptions;
  /** True while the host restores variables: only then may the guest ask to resolve a stored reference. */
  restoring = false;
  /** Receives every message of the workspace's guest. */
  readonly channel: HostChannel;

  constructor(options: BrokerOptions) {
    this.#options = options;
    this.channel = (op, args) => this.#receive(op, args);
  }

  #reply(value: unknown): string {
    return valueReply(value, (inner) => this.#options.codec.encode(inner));
  }

  #entry(id: string | undefined): HandleEntry {
    const entry = this.#options.table.get(Number(id));
    if (!entry) throw new TypeError(`unknown handle ${id}: handles cannot be forged`);
    return entry;
  }

  #refuse(entry: HandleEntry, prop: string): void {
    if (isTool(entry.value)) {
      if (prop !== "name" && prop !== "description") throw new TypeError(`tool ${entry.value.name} has no member '${prop}'`);
      return;
    }
    const refusal = memberRefusal(entry.value, prop, entry.className, entry.policy);
    if (refusal) throw new TypeError(refusal);
  }

  /** The reply for a host result; a promise settles later through the journal's pending count. */
  #settle(record: Crossing, result: unknown): string | Promise<string> {
    const journal = this.#options.journal;
    if (result !== null && (typeof result === "object" || typeof result === "function") && typeof (result as PromiseLike<unknown>).then === "function") {
      journal.startPending(record);
      return Promise.resolve(result as PromiseLike<unknown>).then(
        (value) => this.#reply(value),
        (error: unknown) => {
          journal.fail(record, error);
          return thrownReply(error);
        },
      ).then((reply) => {
        journal.endPending(record, reply);
        return reply;
      });
    }
    const reply = this.#reply(result);
    journal.close(record, reply);
    return reply;
  }

  #receive(op: string, args: string[]): string | Promise<string> {
    if (op === "resolve") return this.#resolve(args);
    // Numbers sent as they are: the same call, with its argument list written here.
    if (op === "callNumbers") return this.#receive("call", [args[0] ?? "", args[1] ?? "", `[${args.slice(2).join(",")}]`]);
    if (op === "repr") return this.#guard(() => this.#reply(llmRepr(this.#options.codec.decode(args[0] ?? ""))));
    let record: Crossing | undefined;
    try {
      const [first, second, third] = args;
      switch (op) {
        case "get": {
          const entry = this.#entry(first);
          record = this.#open("get", "read", entry, second, undefined);
          return this.#get(record, entry, second ?? "");
        }
        case "set": {
          const entry = this.#entry(first);
          record = this.#open("set", "write", entry, second, third);
          this.#set(entry, second ?? "", third ?? "");
          this.#options.journal.close(record, UNDEFINED_REPLY);
          return UNDEFINED_REPLY;
        }
        case "has": {
          const entry = this.#entry(first);
          record = this.#open("has", "read", entry, second, undefined);
          return this.#settle(record, this.#has(entry, second ?? ""));
        }
        case "keys": {
          const entry = this.#entry(first);
          record = this.#open("keys", "read", entry, undefined, undefined);
          const keys = isTool(entry.value) ? ["name", "description"] : publicKeys(entry.value, entry.className, entry.policy);
          return this.#settle(record, keys);
        }
        case "call": {
          const entry = this.#entry(first);
          if (second === "" && isTool(entry.value)) {
            const tool = entry.value;
            record = this.#open("tool", tool.readOnly ? "read" : "write", entry, undefined, third);
            const args = this.#arguments(third);
            const refusal = this.#options.access.refusal(tool);
            if (refusal) {
              // A refused call is still a call: it goes into the job's history like any other.
              this.#options.refused(tool, args, refusal);
              throw refusal;
            }
            return this.#settle(record, this.#options.callTool(tool, args));
          }
          record = this.#open("call", "write", entry, second || undefined, third);
          return this.#settle(record, this.#call(entry, second ?? "", this.#arguments(third)));
        }
        case "now":
          record = this.#options.journal.open("now", "read", undefined, undefined, undefined);
          return this.#settle(record, Number(this.#options.clock()));
        case "monotonic":
          record = this.#options.journal.open("monotonic", "read", undefined, undefined, undefined);
          return this.#settle(record, Number(this.#options.monotonic ? this.#options.monotonic() : performance.now()));
        case "random": {
          record = this.#options.journal.open("random", "read", undefined, undefined, first);
          const count = Math.min(Math.max(Math.trunc(Number(first)) || 1, 1), MAX_RANDOM_BATCH);
          const values = Array.from({ length: count }, () => Number(this.#options.random()));
          return this.#settle(record, values);
        }
        case "print": {
          record = this.#options.journal.open("print", "write", undefined, first, second);
          const stream = first === "err" || first === "echo" ? first : "out";
          this.#options.console.push(stream, formatPrinted(this.#arguments(second)));
          this.#options.journal.close(record, UNDEFINED_REPLY);
          return UNDEFINED_REPLY;
        }
        case "exit":
          record = this.#options.journal.open("exit", "write", undefined, undefined, first);
          this.#options.exit(this.#options.codec.decode(first ?? ""));
          this.#options.journal.close(record, UNDEFINED_REPLY);
          return UNDEFINED_REPLY;
        default:
          return errorReply("TypeError", `unknown host operation '${op}'`);
      }
    } catch (error) {
      if (record) this.#options.journal.fail(record, error);
      return thrownReply(error);
    }
  }

  #open(op: CrossingOp, effect: "read" | "write", entry: HandleEntry, member: string | undefined, args: string | undefined): Crossing {
    return this.#options.journal.open(op, effect, entry.key ?? `${entry.className}#${entry.id}`, member, args);
  }

  #guard(work: () => string): string {
    try {
      return work();
    } catch (error) {
      return thrownReply(error);
    }
  }

  #arguments(text: string | undefined): unknown[] {
    return decodeArguments(text ?? "", (inner) => this.#options.codec.decode(inner));
  }

  #get(record: Crossing, entry: HandleEntry, prop: string): string | Promise<string> {
    if (prop === "toString" && usesDefaultToString(entry.value)) return this.#method(record);
    this.#refuse(entry, prop);
    const value = (entry.value as Record<string, unknown>)[prop];
    if (typeof value === "function" && !isTool(entry.value)) return this.#method(record);
    return this.#settle(record, value);
  }

  #method(record: Crossing): string {
    this.#options.journal.close(record, METHOD_REPLY);
    return METHOD_REPLY;
  }

  #set(entry: HandleEntry, prop: string, text: string): void {
    this.#refuse(entry, prop);
    const target = entry.value as Record<string, unknown>;
    if (isTool(target) || !(prop in target)) throw new TypeError(`cannot add property '${prop}' to ${entry.className}`);
    if (typeof target[prop] === "function") throw new TypeError(`cannot replace method ${entry.className}.${prop}`);
    const refusal = writeRefusal(prop, entry.className, entry.policy);
    if (refusal) throw new TypeError(refusal);
    target[prop] = this.#options.codec.decode(text);
  }

  #has(entry: HandleEntry, prop: string): boolean {
    if (isTool(entry.value)) return prop === "name" || prop === "description";
    return memberRefusal(entry.value, prop, entry.className, entry.policy) === undefined && prop in entry.value;
  }

  #call(entry: HandleEntry, prop: string, args: unknown[]): unknown {
    if (prop === "") {
      if (typeof entry.value !== "function") throw new TypeError(`${entry.className} is not a function`);
      return (entry.value as (...values: unknown[]) => unknown)(...args);
    }
    if (prop === "toString" && usesDefaultToString(entry.value)) return llmRepr(entry.value);
    this.#refuse(entry, prop);
    const method = (entry.value as Record<string, unknown>)[prop];
    if (typeof method !== "function") throw new TypeError(`${entry.className}.${prop} is not a function`);
    return method.apply(entry.value, args);
  }

  #resolve([key, path]: string[]): string {
    if (!this.restoring) return errorReply("TypeError", "stored references can only be resolved while the workspace restores its variables");
    const resolved = this.#options.resolveKey(key ?? "", path ?? key ?? "");
    if ("why" in resolved) return errorReply("ReferenceError", resolved.why);
    return this.#guard(() => this.#reply(resolved.value));
  }
}

function usesDefaultToString(value: object): boolean {
  return (value as { toString?: unknown }).toString === Object.prototype.toString;
}
