/**
 * @module
 * `Agent`: the definition a job runs — its role, system prompt, tools, private context, metadata and model.
 * Agents are code, so every process that runs jobs registers them (DESIGN.md §4).
 */
import type { LanguageModel } from "../models/language-model.ts";
import type { JsonValue } from "../store/store.ts";
import { isTool, type Tool } from "../tools/tool.ts";

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
  /** The agent's tools (hidden ones included); agent code may call the permitted ones. */
  tools?: readonly Tool[];
  /**
   * Names of the tools agent code may call, checked by the broker on every call (prompt visibility is not
   * authorization); a job may replace it (`submitJob({ allowedTools })`). @default every non-hidden tool
   */
  allowedTools?: readonly string[];
  /** Values and functions in scope by name in every job of this agent; they persist by name, not by value. */
  context?: Readonly<Record<string, unknown>>;
  /** Settings such as `MODEL` and `CHAT_STYLE`, frozen into each job at submit time. */
  metadata?: Readonly<Record<string, JsonValue>>;
  /** The model; wins over `metadata.MODEL`. */
  model?: LanguageModel;
  /** Harness limits for this agent's jobs. */
  limits?: HarnessLimits;
}

// `{workspace_isolation}` is filled from the executor in use (sandbox or not), never from the agent.
const DEFAULT_SYSTEM_PROMPT =
  "You are an agent working in a durable TypeScript workspace. Write TypeScript in ```ts fenced blocks; " +
  "variables you declare at the top level persist between steps. Call exit(result) when the task is done.\n" +
  "{workspace_isolation}\n\n" +
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
  /** Names of the tools agent code may call, or `undefined` for every non-hidden tool. */
  readonly allowedTools: readonly string[] | undefined;
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
    for (const name of Object.keys(options.context ?? {})) {
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new TypeError(`${label}: context name '${name}' is not an identifier`);
      if (names.has(name)) throw new TypeError(`${label}: '${name}' is both a tool and a context entry`);
    }
    this.role = options.role;
    this.systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.tools = Object.freeze([...tools]);
    this.allowedTools = options.allowedTools === undefined ? undefined : Object.freeze(checkAllowedTools(this, options.allowedTools, label));
    this.context = Object.freeze({ ...options.context });
    this.metadata = Object.freeze({ ...options.metadata });
    this.model = options.model;
    this.limits = { ...options.limits };
  }
}

/** Checks that `names` are tools of `agent` (a `TypeError` names the first that is not); returns a copy. */
export function checkAllowedTools(agent: { tools: readonly Tool[] }, names: readonly string[], label: string): string[] {
  if (!Array.isArray(names)) throw new TypeError(`${label}: allowedTools must be an array of tool names`);
  const known = new Set(agent.tools.map((tool) => tool.name));
  for (const name of names) {
    if (typeof name !== "string" || !known.has(name)) {
      throw new TypeError(`${label}: allowedTools names '${String(name)}', which is not one of the agent's tools (${[...known].join(", ") || "none"})`);
    }
  }
  return [...names];
}
