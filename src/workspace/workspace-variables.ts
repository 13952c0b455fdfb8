/**
 * @module
 * How tools read a job's workspace variables (`ctx.variable(name)`, and argument binding by variable name): while
 * the guest waits in a host call the value is read live from the VM, otherwise as the end of the last cell saved
 * it — the same, since no agent code ran since.
 *
 * A live read runs guest code (getters, proxies) on the sandbox thread. The variables a tool call's arguments
 * name are read before the call, without blocking the scheduling thread (the guest waits in its call); a read
 * a tool makes itself while it runs must be answered synchronously, so the scheduling thread waits a few
 * milliseconds at most for it (`NESTED_WAIT_MS`), and past that the read throws a `TimeoutError`.
 */
import type { Codec } from "./codec/codec.ts";
import type { z } from "zod";
import { bindArguments } from "../tools/bind-arguments.ts";
import { prepareCall } from "../tools/invoke-tool.ts";
import { accepts } from "../tools/schema-shape.ts";
import type { Tool } from "../tools/tool.ts";
import type { EntryAnswer, Vm } from "./executor.ts";
import { HandleTable } from "./membrane/handle-table.ts";
import { createHostCodec } from "./membrane/host-codec.ts";
import type { StoredRows } from "./stored-rows.ts";


/** What the reader needs from its workspace. */
export interface VariableReaderOptions {
  /** The VM now, when its variables are live in it (no restore pending) and a cell or call runs. */
  liveVm(): Vm | undefined;
  /** The codec values cross with. */
  codec: Codec;
  stored: StoredRows;
  /** The values in scope by name that are not variables (the agent's context, the tools). */
  provided(): Record<string, unknown>;
  /** Resolves a stored reference to its host object. */
  resolveKey(key: string): { value: unknown } | { why: string };
}

/** Reads one workspace's variables for its tools. */
export class VariableReader {
  readonly #options: VariableReaderOptions;
  /** Variables read for the tool call being made now, by name. */
  #bound: Map<string, { value: unknown } | undefined> | undefined;
  #storedCodec: Codec | undefined;

  constructor(options: VariableReaderOptions) {
    this.#options = options;
  }

  /** The variable `name` (see the module comment); `undefined` when there is none. */
  variable(name: string): { value: unknown } | undefined {
    if (this.#bound?.has(name)) return this.#bound.get(name);
    return this.#decode(name, this.#options.liveVm()?.invokeDuringCall?.("variable", [name]));
  }

  /**
   * Reads, before a tool call, the variables its string arguments may name: where the tool's schema wants
   * something else than a string (argument binding), and where it takes any value (a tool documenting "this
   * value, or the variable of this name"); `undefined` when they name none. The call then runs inside
   * {@link withBound}.
   */
  bindArguments(tool: Tool, args: unknown[]): Promise<void> | undefined {
    const vm = this.#options.liveVm();
    if (!vm?.readDuringCall) return undefined;
    const names = namesToRead(tool, args);
    if (!names.size) return undefined;
    const read = vm.readDuringCall.bind(vm);
    return (async () => {
      const reads = new Map<string, { value: unknown } | undefined>();
      for (const name of names) reads.set(name, this.#decode(name, await read("variable", [name])));
      this.#bound = reads;
    })();
  }

  /** Runs a tool call with the variables {@link bindArguments} read, then forgets them. */
  withBound<T>(call: () => T): T {
    try {
      return call();
    } finally {
      this.#bound = undefined;
    }
  }

  #decode(name: string, live: EntryAnswer | undefined): { value: unknown } | undefined {
    if (!live) return this.#stored(name);
    if ("error" in live) {
      // The host does not wait long for the guest (every job of the worker waits with it): say so, by name.
      if (live.error.name === "TimeoutError") {
        throw Object.assign(new Error(`variable ${name} could not be read: ${live.error.message}; pass the value itself rather than its name`), { name: "TimeoutError" });
      }
      return undefined;
    }
    if (live.text === "") return undefined;
    try {
      return { value: this.#options.codec.decode(live.text) };
    } catch {
      return undefined;
    }
  }

  #stored(name: string): { value: unknown } | undefined {
    const row = this.#options.stored.ordered().find((stored) => stored.name === name);
    if (!row) {
      const provided = this.#options.provided();
      return Object.hasOwn(provided, name) ? { value: provided[name] } : undefined;
    }
    try {
      this.#storedCodec ??= createHostCodec({ table: new HandleTable(), describeHandle: () => ({ key: null }), resolveKey: (key) => this.#options.resolveKey(key) });
      return { value: this.#storedCodec.decodeAll([[name, row.blob]])[name] };
    } catch {
      return undefined;
    }
  }
}

/** An identifier a variable could have. */
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

/** The names a tool call's arguments may read (see {@link VariableReader.bindArguments}). */
function namesToRead(tool: Tool, args: unknown[]): Set<string> {
  const names = new Set<string>();
  try {
    prepareCall(tool, args, { variable: (name) => void names.add(name) });
  } catch {
    // The call itself reports what is wrong with its arguments.
  }
  let bound: Record<string, unknown>;
  try {
    bound = bindArguments(tool, args);
  } catch {
    return names;
  }
  for (const [name, value] of Object.entries(bound)) {
    const schema = tool.params.shape[name] as z.ZodType | undefined;
    if (typeof value === "string" && IDENTIFIER.test(value) && schema && takesAnyValue(schema)) names.add(value);
  }
  return names;
}

function takesAnyValue(schema: z.ZodType): boolean {
  return accepts(schema, "") && accepts(schema, 0) && accepts(schema, {}) && accepts(schema, []);
}
