/**
 * @module
 * Which tools a job has, and which of them the model is told about. A registry is explicit: an
 * agent's tools (and tools in its context), then the built-in system tools whose names the agent does not
 * use — never a process-wide list. Discovery and selection work on it by scope (`SYSTEM`, `APPLICATION`,
 * `ALL`), by chat style (a tool's `target`), and always leave hidden tools out unless asked.
 */
import { matchesChatStyle, type ChatStyle } from "./chat-style.ts";
import { isListed, isTool, type Tool } from "./tool.ts";
import { kindOf } from "./with-article.ts";

/** Which tools a selection starts from: framework tools, application tools, or both. */
export type ToolScope = "SYSTEM" | "APPLICATION" | "ALL";

/** The scopes, for checking input. */
export const TOOL_SCOPES: readonly ToolScope[] = Object.freeze(["SYSTEM", "APPLICATION", "ALL"]);

/** Options of {@link selectTools}. */
export interface SelectToolsOptions {
  /** Keep only tools meant for this chat style (untargeted tools always match). */
  chatStyle?: ChatStyle;
  /** Keep unlisted tools too — hidden ones and `_` ones (for the workspace, never for the model). @default false */
  includeHidden?: boolean;
}

/**
 * The tools of `tools` in `scope` (default `ALL`), in their order, without duplicates removed: `SYSTEM`
 * keeps tools made with `system: true`, `APPLICATION` the others. Hidden tools and `_` tools are left out
 * unless `includeHidden`.
 */
export function selectTools(tools: readonly Tool[], scope: ToolScope = "ALL", options: SelectToolsOptions = {}): Tool[] {
  return tools.filter((tool) =>
    (scope === "ALL" || (scope === "SYSTEM") === tool.system) &&
    matchesChatStyle(tool.target, options.chatStyle) &&
    (options.includeHidden || isListed(tool)));
}

/** What a {@link ToolRegistry} is built from. */
export interface ToolRegistryOptions {
  /** The agent's own tools, first; they win over system tools of the same name. */
  tools: readonly Tool[];
  /** Built-in system tools every job of the agent has (`brief`, `docstr`, …). @default [] */
  systemTools?: readonly Tool[];
}

/** The tools of one agent's jobs: its own, then the built-in system tools whose names it does not use. */
export class ToolRegistry {
  /** Every tool, hidden ones included, one per name, agent tools first. */
  readonly all: readonly Tool[];
  /** The agent's own tools (what prompt placeholders list), hidden ones included. */
  readonly own: readonly Tool[];
  readonly #byName: ReadonlyMap<string, Tool>;

  constructor({ tools, systemTools = [] }: ToolRegistryOptions) {
    const byName = new Map<string, Tool>();
    for (const candidate of [...tools, ...systemTools]) {
      if (!isTool(candidate)) throw new TypeError(`ToolRegistry: every entry must be made with tool() (got ${kindOf(candidate)})`);
      if (!byName.has(candidate.name)) byName.set(candidate.name, candidate);
    }
    this.#byName = byName;
    this.all = Object.freeze([...byName.values()]);
    this.own = Object.freeze(this.all.filter((candidate) => tools.includes(candidate)));
  }

  /** The tool called `name`, hidden or not. */
  get(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  /** Discovery: the tools in `scope` for `chatStyle`, hidden ones left out unless asked. */
  find(scope: ToolScope = "ALL", options: SelectToolsOptions = {}): Tool[] {
    return selectTools(this.all, scope, options);
  }

  /** The tools the model may be told about in a job of `chatStyle`: not hidden, meant for that style. */
  visible(chatStyle?: ChatStyle): Tool[] {
    return this.find("ALL", chatStyle === undefined ? {} : { chatStyle });
  }
}
