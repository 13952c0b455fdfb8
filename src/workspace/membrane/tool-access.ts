/**
 * @module
 * Which tools one job may call (DESIGN.md §5, §6.3). Prompt visibility is not authorization, so the broker
 * asks this on *every* call, however agent code got hold of the tool: by name, from a variable, from a host
 * object's property, or by restoring a stored reference. A tool may be called when it is one of the job's
 * tools (the same object, not merely the same name), it is in the job's allowed set, and it is not hidden —
 * unless the job allows hidden tools (warmup code marked hidden does).
 */
import { ToolNotExposedError } from "../../errors/tool-not-exposed-error.ts";
import type { Tool } from "../../tools/tool.ts";

/** What a job's tool access is built from. */
export interface ToolAccessOptions {
  /** The job's tools, hidden ones included (an agent's `tools`). */
  tools: readonly Tool[];
  /** Names agent code may call; `undefined` allows every tool in `tools`. */
  allowed?: readonly string[] | undefined;
  /** Hidden tools may be called too. @default false */
  allowHidden?: boolean | undefined;
}

/** The tool access of one job. */
export class ToolAccess {
  readonly #byName = new Map<string, Tool>();
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #allowHidden: boolean;

  constructor({ tools, allowed, allowHidden = false }: ToolAccessOptions) {
    for (const tool of tools) this.#byName.set(tool.name, tool);
    this.#allowed = allowed === undefined ? undefined : new Set(allowed);
    this.#allowHidden = allowHidden;
  }

  /** True when agent code may call `tool`. */
  permits(tool: Tool): boolean {
    if (this.#byName.get(tool.name) !== tool) return false;
    if (tool.hidden && !this.#allowHidden) return false;
    return this.#allowed === undefined || this.#allowed.has(tool.name);
  }

  /** Throws `NameError: tool 'x' is not exposed to this job` unless agent code may call `tool`. */
  check(tool: Tool): void {
    if (!this.permits(tool)) throw new ToolNotExposedError({ toolName: tool.name });
  }

  /** The job's tool named `name` (for formal calls), whether or not it is permitted. */
  named(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  /**
   * The tools put in scope by name: every permitted one, plus visible ones outside the allowed set, so that
   * calling one says it is not exposed instead of `x is not defined`. Hidden tools that are not permitted
   * stay out of scope: their names are not revealed.
   */
  inScope(): Tool[] {
    return [...this.#byName.values()].filter((tool) => !tool.hidden || this.#allowHidden);
  }
}
