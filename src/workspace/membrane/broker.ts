/**
 * @module
 * The broker: the one place every crossing from agent code to the host goes through —
 * property reads and writes on handles, method and function calls, tool calls, the clock and random source,
 * printing, `exit`, and the restoring of persisted handles. For each it checks the policy (the job's tool
 * access, the member policy and its exposed-class lists), converts the values with the host codec (which
 * refuses forged handles and the host values that must never cross), records the crossing in the
 * {@link CrossingJournal}, and answers in the protocol of `guest-protocol.ts`.
 */
import { isPromise } from "node:util/types";
import type { Codec } from "../codec/codec.ts";
import type { ConsoleStream } from "../console-buffer.ts";
import { METHOD_REPLY, UNDEFINED_REPLY, decodeArguments, errorReply, thrownReply, valueReply } from "../guest/guest-protocol.ts";
import { isTool, type Tool } from "../../tools/tool.ts";
import { futureReply, isDurableFuture } from "../../tools/durable-future.ts";
import { approvalReply, isApprovalRequest } from "../../tools/approval.ts";
import { childStartReply, isChildJobStart } from "../../tools/child-job.ts";
import { llmRepr } from "../../tools/llm-repr.ts";
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import { bindArguments } from "../../tools/bind-arguments.ts";
import type { CrossingKind } from "../cell-journal.ts";
import type { CrossingPolicy } from "../cell-host.ts";
import { ASK_AGAIN, HeldReply } from "../cell-host-contracts.ts";
import { InDoubtError } from "../../errors/in-doubt-error.ts";
import type { Crossing, CrossingJournal, CrossingOp } from "./crossing-journal.ts";
import type { ClassPolicy } from "./exposed-classes.ts";
import type { HandleEntry, HandleTable } from "./handle-table.ts";
import { memberRefusal, publicKeys, visibleUnder, writeRefusal } from "./member-policy.ts";
import type { ToolAccess } from "./tool-access.ts";
import { errorMessage } from "../../errors/error-text.ts";

/** What the broker needs from its workspace. */
export interface BrokerOptions {
  table: HandleTable;
  /** The host codec for what crosses now (it refuses references by key). */
  codec: Codec;
  journal: CrossingJournal;
  access: ToolAccess;
  /** Where printed output goes. */
  console: { push(stream: ConsoleStream, text: string): void };
  /**
   * Calls a tool from agent code (preparation, validation, logging, error handlers); may return a promise.
   * `askOnly`: the call may only ask for approval; if its arguments would run the tool, it fails with this error.
   */
  callTool(tool: Tool, args: unknown[], askOnly?: Error): unknown;
  /**
   * Reads, before a tool call from agent code runs, the workspace variables its arguments name (argument binding
   * by variable name), when they name any: the guest waits in its call meanwhile. `undefined` when there is
   * nothing to read.
   */
  bindArguments?(tool: Tool, args: unknown[]): Promise<void> | undefined;
  /**
   * Calls a `needsApproval` tool whose request `key` a human approved (the guest makes the call again with the
   * key): the job checks the approval and that it was not used before. Without it, such calls are refused.
   */
  callApproved?(tool: Tool, args: unknown[], key: string): unknown;
  /** Records a tool call that tool access refused. */
  refused(tool: Tool, args: unknown[], error: Error): void;
  /** Records `exit(status)`; `failure` is the reason of `failTask(reason)` (the job ends `FAILED`). */
  exit(status: unknown, failure?: string): void;
  /** The host object a persisted handle key stands for, or why it cannot be restored (`path`: where it was). */
  resolveKey(key: string, path: string): { value: unknown } | { why: string };
  /** The time agent code reads (`Date.now()`, `new Date()`). */
  clock(): number;
  /** The monotonic time agent code reads (`performance.now()`). @default the host's `performance.now` */
  monotonic?: () => number;
  /** A random number in [0, 1) for agent code's `Math.random()`. */
  random(): number;
  /** The member policy of a host object's exposed class, if it has one (formatting obeys it too). */
  policyOf?(value: object): ClassPolicy | undefined;
  /** The shared-memory value a name in scope stands for, or `undefined` when memory no longer has it. */
  sharedValue?(name: string): { value: unknown } | undefined;
}

/**
 * Formats values for `print` and echoes: strings raw, everything else with `llmRepr`; `visible` filters the
 * members of class instances (the member policy, for what agent code prints).
 */
export function formatPrinted(values: readonly unknown[], visible?: (object: object, member: string) => boolean): string {
  const options = visible ? { visible } : {};
  return values.map((value) => (typeof value === "string" ? value : llmRepr(value, options))).join(" ");
}

const MAX_RANDOM_BATCH = 1024;

/** The host side of one workspace's boundary. */
export class Broker {
  readonly #options: BrokerOptions;
  /** True while the host restores variables: only then may the guest ask to resolve a stored reference. */
  restoring = false;
  /**
   * Receives every message of the workspace's guest; a promise is a result the guest gets later, a
   * {@link HeldReply} an answer the guest waits for in its call.
   */
  readonly channel: (op: string, args: readonly string[]) => string | Promise<string> | HeldReply;
  /** How each guest message is journaled: side effects, reads, or the step's own business. */
  readonly policy: CrossingPolicy = {
    kind: (op, args) => this.#kindOf(op, args),
    idempotent: (op, args) => {
      const entry = this.#options.table.get(Number(args[0]));
      const call = ((op === "call" || op === "callNumbers") && !args[1]) || op === "callApproved";
      return call && entry !== undefined && isTool(entry.value) && entry.value.idempotent;
    },
    asksFirst: (op, args) => {
      const entry = this.#options.table.get(Number(args[0]));
      return (op === "call" || op === "callNumbers") && !args[1] && entry !== undefined && isTool(entry.value) && entry.value.needsApproval !== false;
    },
  };
  /** Set while a call in doubt is made again as one that may only ask ({@link ASK_AGAIN}). */
  #asking = false;

  constructor(options: BrokerOptions) {
    this.#options = options;
    this.channel = (op, args) => this.#receive(op, args);
  }

  /** Whether formatting may show member `member` of `object`: the member policy of its exposed class. */
  readonly #visible = visibleUnder((object) => this.#options.policyOf?.(object));

  #repr(value: unknown): string {
    return llmRepr(value, { visible: this.#visible });
  }

  #reply(value: unknown): string {
    // A durable future is not a value: the cell host turns it into a wait (the guest never sees this reply).
    if (isDurableFuture(value)) return futureReply(value);
    // So are a call waiting for approval and a child job being started: the job runner handles both.
    if (isApprovalRequest(value)) return approvalReply(value);
    if (isChildJobStart(value)) return childStartReply(value);
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

  /**
   * The reply for a host result; a promise settles later through the journal's pending count. Only a real
   * promise is awaited: any other value with a `then` is a value like the rest, because its `then` may be the
   * guest's (a handle's function set as a field) and adopting it would wait forever.
   */
  #settle(record: Crossing, result: unknown): string | Promise<string> {
    if (isPromise(result)) {
      this.#options.journal.startPending(record);
      return this.#settleLater(record, result);
    }
    const reply = this.#reply(result);
    this.#options.journal.close(record, reply);
    return reply;
  }

  /** Awaits a host promise; the pending call ends whatever happens (a result that cannot cross included). */
  async #settleLater(record: Crossing, promise: Promise<unknown>): Promise<string> {
    const journal = this.#options.journal;
    let reply: string;
    try {
      reply = this.#reply(await promise);
    } catch (error) {
      journal.fail(record, error);
      reply = thrownReply(error);
    }
    try {
      // Counts the reply against the cell's transfer limit, like a synchronous one.
      journal.endPending(record, reply);
    } catch (error) {
      journal.fail(record, error);
      reply = thrownReply(error);
    }
    return reply;
  }

  #receive(op: string, args: readonly string[]): string | Promise<string> | HeldReply {
    if (op === "resolve") return this.#resolve(args);
    if (op === ASK_AGAIN) return this.#askAgain(args);
    // Numbers sent as they are: the same call, with its argument list written here.
    if (op === "callNumbers") return this.#receive("call", [args[0] ?? "", args[1] ?? "", `[${args.slice(2).join(",")}]`]);
    if (op === "repr") return this.#guard(() => this.#reply(this.#repr(this.#options.codec.decode(args[0] ?? ""))));
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
            const askOnly = this.#asking ? new InDoubtError({ call: this.describe("call", [first ?? "", second ?? "", third ?? ""]) }) : undefined;
            return this.#afterBinding(record, tool, args, () => this.#options.callTool(tool, args, askOnly));
          }
          record = this.#open("call", "write", entry, second || undefined, third);
          return this.#settle(record, this.#call(entry, second ?? "", this.#arguments(third)));
        }
        case "callApproved": {
          // The call of a `needsApproval` tool again, now approved (the guest runtime sends it; agent code can
          // too, so the job checks the key: this job's, approved, for this tool, not used before).
          const entry = this.#entry(first);
          if (!isTool(entry.value)) throw new TypeError("only a tool call can be approved");
          const tool = entry.value;
          record = this.#open("tool", "write", entry, undefined, third);
          const args = this.#arguments(third);
          const refusal = this.#options.access.refusal(tool);
          if (refusal) {
            this.#options.refused(tool, args, refusal);
            throw refusal;
          }
          if (!this.#options.callApproved) throw new TypeError(`${tool.name}: an approved call needs a job`);
          const callApproved = this.#options.callApproved;
          return this.#afterBinding(record, tool, args, () => callApproved(tool, args, second ?? ""));
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
        case "shared": {
          // A name of shared memory read by agent code: a read, journaled like any, so a replay gets the same value.
          record = this.#options.journal.open("shared", "read", undefined, first, undefined);
          const found = this.#options.sharedValue?.(first ?? "");
          if (!found) throw new ReferenceError(`${first} is not defined (it is no longer in shared memory)`);
          return this.#settle(record, found.value);
        }
        case "print":
          return this.#print(first, second);
        case "exit":
          record = this.#options.journal.open("exit", "write", undefined, undefined, first);
          this.#options.exit(this.#options.codec.decode(first ?? ""), second === undefined ? undefined : String(second));
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

  /** Makes a tool call once the variables its arguments name are read (at once when they name none). */
  #afterBinding(record: Crossing, tool: Tool, args: unknown[], call: () => unknown): string | Promise<string> | HeldReply {
    const reading = this.#options.bindArguments?.(tool, args);
    if (!reading) return this.#settle(record, call());
    const fail = (error: unknown) => {
      this.#options.journal.fail(record, error);
      return thrownReply(error);
    };
    return new HeldReply(reading.then(() => {
      try {
        return this.#settle(record, call());
      } catch (error) {
        return fail(error);
      }
    }, fail));
  }

  // A crossing is side-effecting unless it only reads: a read-only tool, a property read, a method its class
  // declares free of side effects (`statek.expose(Class, { readOnlyMethods })`), the clock. Printing and
  // `exit` touch nothing outside the step.
  #kindOf(op: string, args: readonly string[]): CrossingKind {
    switch (op) {
      case "print":
      case "exit":
      case "repr":
        return "local";
      case "set":
      case "callApproved":
        return "effect";
      case ASK_AGAIN:
        return this.#kindOf(args[0] ?? "", args.slice(1));
      case "call":
      case "callNumbers": {
        const entry = this.#options.table.get(Number(args[0]));
        if (!entry) return "read";
        const member = args[1] ?? "";
        if (isTool(entry.value)) return member === "" && !entry.value.readOnly ? "effect" : "read";
        if (member === "toString" && usesDefaultToString(entry.value)) return "read";
        return entry.policy?.readOnlyMethods.has(member) ? "read" : "effect";
      }
      default:
        return "read";
    }
  }

  // A call in doubt made again when it may only ask for approval: `[op, ...args]` of the original call.
  #askAgain([op = "", ...args]: readonly string[]): string | Promise<string> | HeldReply {
    if (op !== "call" && op !== "callNumbers") return errorReply("TypeError", "only a tool call can ask again");
    this.#asking = true;
    try {
      return this.#receive(op, args);
    } finally {
      this.#asking = false;
    }
  }

  /**
   * The record of a tool call found in doubt (its intent journaled, its result never): the call's name and
   * arguments with `error` (`InDoubtError: …`) as its outcome. `undefined` for a crossing that is not a tool call
   * (a method of a host object: it leaves no tool-call record either way).
   */
  inDoubtRecord(op: string, args: readonly string[], error: string): ToolCallRecord | undefined {
    if (op !== "call" && op !== "callNumbers" && op !== "callApproved") return undefined;
    const entry = args[0] === undefined ? undefined : this.#options.table.get(Number(args[0]));
    if (!entry || !isTool(entry.value) || (op !== "callApproved" && args[1])) return undefined;
    let shown = "";
    try {
      const list = op === "callNumbers" ? `[${args.slice(2).join(",")}]` : args[2];
      const decoded = this.#arguments(list);
      let named: unknown = decoded;
      try {
        named = bindArguments(entry.value, decoded);
      } catch {
        // Shown as they were passed.
      }
      shown = llmRepr(named, { maxDepth: 2, maxItems: 10 });
    } catch {
      // Arguments that cannot be read back still leave the call's record, without them.
    }
    return { name: entry.value.name, origin: "code", args: shown, error, durationMs: 0 };
  }

  /** A guest message in the model's words (`calendar.move(…)`, `findEmptySlot(…)`), for replay divergences. */
  describe(op: string, args: readonly string[]): string {
    const entry = args[0] === undefined ? undefined : this.#options.table.get(Number(args[0]));
    const member = args[1] ? String(args[1]) : "";
    const target = !entry ? "" : isTool(entry.value) ? entry.value.name : entry.key?.startsWith("binding:") ? entry.key.slice("binding:".length) : entry.className;
    switch (op) {
      case "call":
      case "callNumbers":
        return member ? `${target}.${member}(…)` : `${target}(…)`;
      case "callApproved":
        return `${target}(…) (approved)`;
      case "get":
      case "has":
        return `${target}.${member}`;
      case "set":
        return `${target}.${member} = …`;
      case "now":
        return "Date.now()";
      case "shared":
        return `${args[0] ?? ""} (shared memory)`;
      case "random":
        return "Math.random()";
      case "timer":
        return "setTimeout(…)";
      default:
        return `${op}(…)`;
    }
  }

  /**
   * `print`, `console.*` and echoes. They never fail from the guest's point of view — the sandbox thread may
   * send them without waiting for the answer — so what cannot be printed (a value that does not cross, a
   * limit reached) is shown on the console as an error line instead; a limit then stops the cell at its next
   * host call.
   */
  #print(stream: string | undefined, args: string | undefined): string {
    let record: Crossing | undefined;
    try {
      record = this.#options.journal.open("print", "write", undefined, stream, args);
      // `notice` comes from the guest runtime itself (a promise used without await), never from agent code.
      this.#options.console.push(stream === "err" || stream === "echo" || stream === "notice" ? stream : "out", formatPrinted(this.#arguments(args), this.#visible));
      this.#options.journal.close(record, UNDEFINED_REPLY);
    } catch (error) {
      if (record) this.#options.journal.fail(record, error);
      // Shown once per cell: a loop of prints past a limit would otherwise flood the console with the same error.
      if (this.#options.journal.notePrintFailure()) {
        this.#options.console.push("error", `${error instanceof Error ? error.name : "Error"}: ${errorMessage(error)}`);
      }
    }
    return UNDEFINED_REPLY;
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
    if (prop === "toString" && usesDefaultToString(entry.value)) return this.#repr(entry.value);
    this.#refuse(entry, prop);
    const method = (entry.value as Record<string, unknown>)[prop];
    if (typeof method !== "function") throw new TypeError(`${entry.className}.${prop} is not a function`);
    return method.apply(entry.value, args);
  }

  #resolve([key, path]: readonly string[]): string {
    if (!this.restoring) return errorReply("TypeError", "stored references can only be resolved while the workspace restores its variables");
    const resolved = this.#options.resolveKey(key ?? "", path ?? key ?? "");
    if ("why" in resolved) return errorReply("ReferenceError", resolved.why);
    return this.#guard(() => this.#reply(resolved.value));
  }
}

function usesDefaultToString(value: object): boolean {
  return (value as { toString?: unknown }).toString === Object.prototype.toString;
}
