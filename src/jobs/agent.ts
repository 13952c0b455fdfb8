/**
 * @module
 * `Agent`: the definition a job runs — its role, system prompt, tools, private context, metadata and model.
 * Agents are code, so every process that runs jobs registers them (DESIGN.md §4).
 */
import type { LanguageModel } from "../models/language-model.ts";
import type { JsonValue } from "../store/store.ts";
import { isChatStyleName, DEFAULT_CHAT_STYLE } from "../tools/chat-style.ts";
import { selectScopedTools } from "../tools/llm-tools-scope.ts";
import { isTool, type Tool } from "../tools/tool.ts";
import { ToolRegistry } from "../tools/tool-registry.ts";
import { SYSTEM_TOOLS } from "./system-tools.ts";

/** Per-job limits that end a job as `FAILED` with a readable reason (DESIGN.md §8.4). */
export interface HarnessLimits {
  /** Model turns a job may take. @default 50 */
  maxTurns?: number;
}

/** What {@link Agent} is built from. */
export interface AgentOptions {
  /** The agent's name; jobs refer to their agent by it. */
  role: string;
  /** The system prompt; may contain placeholders such as `{brief_tools}` and `{shared_var_names}`. */
  systemPrompt?: string;
  /** Tools agent code may call; the visible ones are listed by the prompt's tool placeholders. */
  tools?: readonly Tool[];
  /** Framework tools every job of this agent has besides its own. @default `brief` and `docstr` */
  systemTools?: readonly Tool[];
  /** Values and functions in scope by name in every job of this agent; they persist by name, not by value. */
  context?: Readonly<Record<string, unknown>>;
  /** Settings such as `MODEL` and `CHAT_STYLE`, frozen into each job at submit time. */
  metadata?: Readonly<Record<string, JsonValue>>;
  /** The model; wins over `metadata.MODEL`. */
  model?: LanguageModel;
  /** Harness limits for this agent's jobs. */
  limits?: HarnessLimits;
}

const DEFAULT_SYSTEM_PROMPT =
  "You are an agent working in a durable TypeScript workspace. Write TypeScript in ```ts fenced blocks; " +
  "variables you declare at the top level persist between steps. Call exit(result) when the task is done.\n\n" +
  "Available variables: {shared_var_names}\nAvailable tools:\n{brief_tools}";

/**
 * An agent definition.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   role: "calendar_assistant",
 *   systemPrompt: "You help users manage their calendar.\nTools:\n{brief_tools}",
 *   tools: [findEmptySlot, moveMeeting],
 *   model: scriptedModel(["```ts\nexit('ok')\n```"]),
 * });
 * ```
 */
export class Agent {
  readonly role: string;
  readonly systemPrompt: string;
  readonly tools: readonly Tool[];
  /**
   * Every tool this agent's jobs have: its tools, tools in its context, then the system tools whose names
   * those do not take. The workspace installs all of them; hidden ones are refused to agent code.
   */
  readonly registry: ToolRegistry;
  readonly context: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, JsonValue>>;
  readonly model: LanguageModel | undefined;
  readonly limits: HarnessLimits;

  constructor(options: AgentOptions) {
    if (typeof options.role !== "string" || !/^[A-Za-z0-9_.:-]+$/.test(options.role)) {
      throw new TypeError(`Agent: role must be a non-empty name of letters, digits, _ . : - (got ${JSON.stringify(options.role)})`);
    }
    const label = `Agent '${options.role}'`;
    const tools = options.tools ?? [];
    const names = new Set<string>();
    for (const candidate of tools) {
      if (!isTool(candidate)) throw new TypeError(`${label}: every entry of tools must be made with tool() (got ${typeof candidate})`);
      if (names.has(candidate.name)) throw new TypeError(`${label}: two tools are named '${candidate.name}'`);
      names.add(candidate.name);
    }
    const contextTools: Tool[] = [];
    for (const [name, value] of Object.entries(options.context ?? {})) {
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new TypeError(`${label}: context name '${name}' is not an identifier`);
      if (names.has(name)) throw new TypeError(`${label}: '${name}' is both a tool and a context entry`);
      if (isTool(value)) {
        if (value.name !== name) throw new TypeError(`${label}: context entry '${name}' holds tool '${value.name}'; use the tool's own name`);
        contextTools.push(value);
      }
    }
    const systemTools = options.systemTools ?? SYSTEM_TOOLS;
    for (const candidate of systemTools) {
      if (!isTool(candidate)) throw new TypeError(`${label}: every entry of systemTools must be made with tool() (got ${typeof candidate})`);
    }
    this.role = options.role;
    this.systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.tools = Object.freeze([...tools]);
    this.registry = new ToolRegistry({ tools: [...tools, ...contextTools], systemTools });
    this.context = Object.freeze({ ...options.context });
    this.metadata = Object.freeze({ ...options.metadata });
    this.model = options.model;
    this.limits = { ...options.limits };
    // A bad LLM_TOOLS_SCOPE shows now, not at the first model call.
    const scope = this.metadata.LLM_TOOLS_SCOPE;
    if (scope !== undefined && scope !== null) {
      if (typeof scope !== "string") throw new TypeError(`${label}: metadata LLM_TOOLS_SCOPE must be a string`);
      const style = isChatStyleName(this.metadata.CHAT_STYLE) ? this.metadata.CHAT_STYLE : DEFAULT_CHAT_STYLE;
      try {
        selectScopedTools(this.registry.all, scope, style);
      } catch (error) {
        throw new TypeError(`${label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
  }
}
