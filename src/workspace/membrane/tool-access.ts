/**
 * @module
 * Which tools one job may call. Prompt visibility is not authorization, so the broker
 * asks this on *every* call, however agent code got hold of the tool: by name, from a variable, from a host
 * object's property, or by restoring a stored reference. A tool may be called when it is one of the job's
 * tools (the same object, not merely the same name), it is in the job's allowed set, and it is not hidden. A
 * hidden tool may be called only where the workspace allows hidden tools, or the running cell does (warmup
 * code marked hidden) — whatever the allowed set says.
 */
import { NameError } from "../../errors/name-error.ts";
import type { Tool } from "../../tools/tool.ts";

/** What a job's tool access is built from. */
export interface ToolAccessOptions {
  /** The job's tools, hidden ones included (an agent's registry). */
  tools: readonly Tool[];
  /** Names agent code may call; `undefined` allows every tool in `tools`. */
  allowed?: readonly string[] | undefined;
  /** Hidden tools may be called too, by every cell of this workspace. @default false */
  allowHidden?: boolean | undefined;
}

/** The tool access of one job. */
export class ToolAccess {
  readonly #byName = new Map<string, Tool>();
  readonly #allowed: Set<string> | undefined;
  readonly #allowHidden: boolean;
  #cellAllowsHidden = false;

  constructor({ tools, allowed, allowHidden = false }: ToolAccessOptions) {
    for (const tool of tools) this.#byName.set(tool.name, tool);
    this.#allowed = allowed === undefined ? undefined : new Set(allowed);
    this.#allowHidden = allowHidden;
  }

  /** Lets the cell about to run call hidden tools (and only it: reset when the cell ends). */
  set cellAllowsHidden(allowed: boolean) {
    this.#cellAllowsHidden = allowed;
  }

  /**
   * Adds a tool made while the job runs (`createTool`): it may be called exactly when `like`, the tool it
   * calls, may be.
   */
  add(tool: Tool, like: Tool): void {
    this.#byName.set(tool.name, tool);
    if (this.#allowed?.has(like.name)) this.#allowed.add(tool.name);
  }

  /** True when agent code may call `tool`. */
  permits(tool: Tool): boolean {
    if (this.#byName.get(tool.name) !== tool) return false;
    // A hidden tool answers to the hidden rule alone: the allowed set narrows what the model's code may call,
    // and hidden tools are for the application's own code (warmup marked hidden).
    if (tool.hidden) return this.#allowHidden || this.#cellAllowsHidden;
    return this.#allowed === undefined || this.#allowed.has(tool.name);
  }

  /** The `NameError: tool 'x' is not exposed to this job` for a call that is not permitted, else `undefined`. */
  refusal(tool: Tool): NameError | undefined {
    return this.permits(tool) ? undefined : new NameError({ identifier: tool.name, problem: "tool-not-exposed" });
  }

  /** The job's tool named `name` (for formal calls), whether or not it is permitted. */
  named(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  /**
   * The tools put in scope by name: all of them. One that is not permitted (hidden, or outside the allowed
   * set) answers a call with `NameError: tool 'x' is not exposed to this job` — the message the tools page
   * specifies — rather than `x is not defined`; hidden means "not advertised", not "secret".
   */
  inScope(): Tool[] {
    return [...this.#byName.values()];
  }
}
