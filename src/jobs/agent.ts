/**
 * @module
 * `Agent`: the definition a job runs — its role, system prompt, tools, private context, metadata and model,
 * plus its dialog channel, warmup code, harness limits and post-processors. Agents are code, so every
 * process that runs jobs registers them (DESIGN.md §4).
 */
import type { LanguageModel } from "../models/language-model.ts";
import type { JsonValue } from "../store/store.ts";
import { selectScopedTools } from "../tools/llm-tools-scope.ts";
import { isTool, type Tool } from "../tools/tool.ts";
import { chatStyleOf, type ChatStyle } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";
import { checkHarnessLimits, type HarnessLimits } from "./harness.ts";
import { parsePostProcessors } from "./parse-post-processors.ts";
import type { PostProcessor } from "./post-processor.ts";
import { readPromptFile } from "./prompt-file.ts";
import { parseWarmup, type WarmupBlock, type WarmupSource } from "./warmup.ts";
import type { OnModelText } from "./job-events.ts";
import { ToolRegistry } from "../tools/tool-registry.ts";
import { SYSTEM_TOOLS } from "./system-tools.ts";
import { isIdentifier } from "../tools/is-identifier.ts";
import { WORKSPACE_GLOBALS_NOTE } from "../workspace/workspace-notes.ts";

export type { HarnessLimits } from "./harness.ts";

/**
 * Receives the user-facing replies of a dialog job (`MD_DIALOG`, `DIRECT`): the text, a file it refers to,
 * and which job it comes from. May be async; a thrown error is shown to the model and the turn goes on.
 */
export type OnMessage = (body: string, media: string | undefined, context: { job: { id: string; role: string } }) => void | Promise<void>;

/** What {@link Agent} is built from. */
export interface AgentOptions {
  /** The agent's name; jobs refer to their agent by it. */
  role: string;
  /** The system prompt; may contain placeholders such as `{brief_tools}` and `{shared_var_names}`. */
  systemPrompt?: string;
  /** The agent's tools (hidden ones included); the visible ones are listed by the prompt's tool placeholders. */
  tools?: readonly Tool[];
  /** Framework tools every job of this agent has besides its own. @default `brief` and `docstr` */
  systemTools?: readonly Tool[];
  /**
   * Names of the tools agent code may call, checked by the broker on every call (prompt visibility is not
   * authorization); a job may replace it (`submitJob({ allowedTools })`). @default every tool
   */
  allowedTools?: readonly string[];
  /** Values and functions in scope by name in every job of this agent; they persist by name, not by value. */
  context?: Readonly<Record<string, unknown>>;
  /**
   * Settings frozen into each job at submit time: `MODEL` (`openai/gpt-5-mini`), `CHAT_STYLE`,
   * `LLM_TOOLS_SCOPE`, `POST_PROCESSORS`, `XML_BOX_CONSOLE`, …
   */
  metadata?: Readonly<Record<string, JsonValue>>;
  /** The model; wins over `metadata.MODEL`. */
  model?: LanguageModel;
  /** Harness limits for this agent's jobs (over `Statek.open({ harness })` and the defaults). */
  limits?: HarnessLimits;
  /** The dialog channel: receives the user-facing replies of `MD_DIALOG` and `DIRECT` jobs. */
  onMessage?: OnMessage;
  /**
   * Hears the model's reply text of this agent's jobs as it streams in, before the reply is committed (see
   * {@link OnModelText}); `Statek.open({ onModelText })` hears every job's.
   */
  onModelText?: OnModelText;
  /** Code run in every job of this agent before the model is first asked (after the job's own warmup). */
  warmup?: WarmupSource;
  /** Checks run on every model reply before it is committed (after those named in `metadata.POST_PROCESSORS`). */
  postProcessors?: readonly PostProcessor[];
}

/** What {@link Agent.fromPromptFile} takes besides the file: the parts of an agent that are code. */
export type PromptFileAgentOptions = Omit<AgentOptions, "role" | "systemPrompt" | "metadata"> & {
  /** Overrides the role given by the file (`# ROLE:` or the file name). */
  role?: string;
};

/** The system prompt of an agent that gives none, for its chat style. */
function defaultSystemPrompt(style: ChatStyle): string {
  return "You are an agent working in a durable TypeScript workspace. " + chatStyleRules(style).instructions +
    " Variables you declare at the top level persist between steps. " +
    (chatStyleRules(style).dialog ? "Call exit(result) to end the job for good.\n" : "Call exit(result) when the task is done.\n") +
    // `{workspace_isolation}` is filled from the executor in use (sandbox or not), never from the agent.
    "{workspace_isolation}\n" + WORKSPACE_GLOBALS_NOTE + "\n\n" +
    "Available variables: {shared_var_names}\nAvailable tools:\n{brief_tools}";
}

/**
 * An agent definition.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   role: "calendar_assistant",
 *   systemPrompt: "You help users manage their calendar.\nTools:\n{brief_tools}",
 *   tools: [findEmptySlot, moveMeeting],
 *   metadata: { MODEL: "openai/gpt-5-mini" },
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
  /** Names of the tools agent code may call, or `undefined` for every non-hidden tool. */
  readonly allowedTools: readonly string[] | undefined;
  readonly context: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, JsonValue>>;
  readonly model: LanguageModel | undefined;
  readonly limits: HarnessLimits;
  readonly onMessage: OnMessage | undefined;
  readonly onModelText: OnModelText | undefined;
  readonly warmup: readonly WarmupBlock[];
  /** The post-processors of `metadata.POST_PROCESSORS`, then those given in code. */
  readonly postProcessors: readonly PostProcessor[];

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
      if (!isIdentifier(name)) throw new TypeError(`${label}: context name '${name}' is not an identifier`);
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
    const metadata = Object.freeze({ ...options.metadata });
    let style: ChatStyle;
    try {
      style = chatStyleOf(metadata);
    } catch (error) {
      throw new TypeError(`${label}: ${(error as Error).message}`);
    }
    if (options.onMessage !== undefined && typeof options.onMessage !== "function") throw new TypeError(`${label}: onMessage must be a function`);
    if (options.onModelText !== undefined && typeof options.onModelText !== "function") throw new TypeError(`${label}: onModelText must be a function`);
    const postProcessors: PostProcessor[] = [];
    if (typeof metadata.POST_PROCESSORS === "string") postProcessors.push(...parsePostProcessors(metadata.POST_PROCESSORS));
    for (const processor of options.postProcessors ?? []) {
      if (typeof processor?.process !== "function" || typeof processor.name !== "string") {
        throw new TypeError(`${label}: every post-processor needs a name and a process(draft, context) method`);
      }
      postProcessors.push(processor);
    }
    this.role = options.role;
    this.systemPrompt = options.systemPrompt ?? defaultSystemPrompt(style);
    this.tools = Object.freeze([...tools]);
    this.registry = new ToolRegistry({ tools: [...tools, ...contextTools], systemTools });
    this.allowedTools = options.allowedTools === undefined ? undefined : Object.freeze(checkAllowedTools(this, options.allowedTools, label));
    this.context = Object.freeze({ ...options.context });
    this.metadata = metadata;
    this.model = options.model;
    this.limits = checkHarnessLimits(options.limits, label);
    this.onMessage = options.onMessage;
    this.onModelText = options.onModelText;
    this.warmup = Object.freeze(parseWarmup(options.warmup, `${label}: warmup`));
    this.postProcessors = Object.freeze(postProcessors);
    // A bad LLM_TOOLS_SCOPE shows now, not at the first model call.
    const scope = this.metadata.LLM_TOOLS_SCOPE;
    if (scope !== undefined && scope !== null) {
      if (typeof scope !== "string") throw new TypeError(`${label}: metadata LLM_TOOLS_SCOPE must be a string`);
      try {
        selectScopedTools(this.registry.all, scope, style);
      } catch (error) {
        throw new TypeError(`${label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
  }

  /**
   * An agent from a prompt definition file (metadata lines, `# System Prompt`, the prompt text); the parts
   * that are code come in `options`.
   *
   * @throws {InvalidPromptFileError} Naming the file and line of the first problem.
   *
   * @example
   * ```ts
   * const agent = Agent.fromPromptFile("prompts/calendar_assistant.md", { tools: [findEmptySlot], context: { formatSlot } });
   * ```
   */
  static fromPromptFile(path: string, options: PromptFileAgentOptions = {}): Agent {
    const definition = readPromptFile(path);
    return new Agent({
      ...options,
      role: options.role ?? definition.role,
      systemPrompt: definition.systemPrompt,
      metadata: definition.metadata,
      limits: { ...definition.limits, ...options.limits },
    });
  }
}

/** Checks that `names` are tools of `agent` (a `TypeError` names the first that is not); returns a copy. */
export function checkAllowedTools(agent: { registry: ToolRegistry }, names: readonly string[], label: string): string[] {
  if (!Array.isArray(names)) throw new TypeError(`${label}: allowedTools must be an array of tool names`);
  const known = new Set(agent.registry.all.map((tool) => tool.name));
  for (const name of names) {
    if (typeof name !== "string" || !known.has(name)) {
      throw new TypeError(`${label}: allowedTools names '${String(name)}', which is not one of the agent's tools (${[...known].join(", ") || "none"})`);
    }
  }
  return [...names];
}
