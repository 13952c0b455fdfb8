/**
 * @module
 * `Agent`: the definition a job runs — its role, system prompt, tools, private context, settings and model,
 * plus its dialog channel, warmup code, harness limits and post-processors. Agents are code, so every
 * process that runs jobs registers them.
 */
import { briefTool, docstrTool } from "../docs/system-tools.ts";
import type { LanguageModel } from "../models/language-model.ts";
import { isTool, type Tool } from "../tools/tool.ts";
import { agentTools, type AgentTools } from "../tools/ai-sdk-tool.ts";
import { kindOf } from "../tools/with-article.ts";
import { chatStyleOf, type ChatStyle } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";
import type { HarnessLimits } from "./harness.ts";
import {
  applyTypedSettings, checkHarnessOption, checkMetadataObject, checkMetadataSettings, checkModelString, harnessFromMetadata,
  withoutHarnessKeys, type JobMetadata, type JobSettings,
} from "./job-settings.ts";
import { parsePostProcessors } from "./parse-post-processors.ts";
import type { PostProcessor } from "./post-processor.ts";
import { readPromptFile, type PromptDefinition } from "./prompt-file.ts";
import { parseWarmup, type WarmupBlock, type WarmupSource } from "./warmup-blocks.ts";
import type { OnModelText } from "./model-text.ts";
import { ToolRegistry } from "../tools/tool-registry.ts";
import { SYSTEM_TOOLS } from "./system-tools.ts";
import { delegateTaskTool } from "./delegate-task.ts";
import { isIdentifier } from "../tools/is-identifier.ts";
import { WORKSPACE_GLOBALS_NOTE } from "../workspace/workspace-notes.ts";
import { loadExamples, type Example, type ExamplesSource } from "./examples.ts";
import { loadDocuments, type AgentDocument, type DocumentsSource } from "./documents.ts";
import { documentTools, exampleTools, panicTool } from "./knowledge-tools.ts";
import { parseModelChoice } from "./difficulty.ts";
import { hasDifficultySections } from "./prompt-sections.ts";
import { checkReminders, type Reminder } from "./reminders.ts";

export type { HarnessLimits } from "./harness.ts";

/**
 * Receives the user-facing replies of a dialog job (`MD_DIALOG`, `DIRECT`): the text, a file it refers to,
 * and which job it comes from. May be async; a thrown error is shown to the model and the turn goes on.
 */
export type OnMessage = (body: string, media: string | undefined, context: { job: { id: string; role: string } }) => void | Promise<void>;

/**
 * What {@link Agent} is built from. The settings of {@link JobSettings} (`chatStyle`, `toolsScope`, `harness`, …)
 * may also be given as `metadata` strings (`CHAT_STYLE`, `LLM_TOOLS_SCOPE`, `MAX_TURNS`, …), as prompt files do;
 * where both are given, the typed option wins.
 */
export interface AgentOptions extends JobSettings {
  /** The agent's name; jobs refer to their agent by it. */
  role: string;
  /**
   * The system prompt; may contain placeholders such as `{typed_brief_tools}` and `{shared_var_names}`.
   * @default a prompt for the agent's chat style that lists the variables and tools (with their parameter types)
   */
  systemPrompt?: string;
  /**
   * The agent's tools (hidden ones included); the visible ones are listed by the prompt's tool placeholders. A
   * record by name may also hold tools written for the AI SDK (`tool({ description, inputSchema, execute })`
   * from `ai`), taken as they are (see docs/interop.md).
   */
  tools?: AgentTools;
  /** Framework tools every job of this agent has besides its own. @default `brief` and `docstr` */
  systemTools?: readonly Tool[];
  /**
   * Agents this one may hand work to as sub-tasks: its jobs get the system tool `delegateTask(role, { message,
   * vars })`, which starts a child job of one of them and returns its handle.
   */
  delegates?: readonly Agent[];
  /**
   * Names of the tools agent code may call, checked by the broker on every call (prompt visibility is not
   * authorization); a job may replace it (`submitJob({ allowedTools })`). @default every tool
   */
  allowedTools?: readonly string[];
  /** Values and functions in scope by name in every job of this agent; they persist by name, not by value. */
  context?: Readonly<Record<string, unknown>>;
  /**
   * Settings frozen into each job at submit time, by their metadata names — `MODEL` (`openai/gpt-5-mini`),
   * `CHAT_STYLE`, `LLM_TOOLS_SCOPE`, `TOOLS_SCHEMA`, `POST_PROCESSORS`, `XML_BOX_CONSOLE`, `STATEK_DEFAULT_ACL`,
   * `MAX_TURNS`, … — and any values of the application's own. A typed option wins over its metadata name.
   */
  metadata?: JobMetadata;
  /**
   * The model: any AI SDK language model, or a model string (`"openai/gpt-5-mini"`, the `MODEL` setting). A
   * model object is used as it is; a string is resolved through the model registry (`Statek.open({ models })`).
   */
  model?: LanguageModel | string;
  /** Not an option: an agent's limits are {@link JobSettings.harness}; giving `limits` throws a `TypeError` saying so. */
  limits?: never;
  /** What the agent does, for other agents and operators (`DESCRIPTION`). */
  description?: string;
  /**
   * Worked examples the model can look at with `listExamples()` / `showExample(id)`: a folder of Markdown files
   * (see docs/knowledge.md for the format) or example objects.
   */
  examples?: ExamplesSource;
  /**
   * Documents the model can read with `listDocuments(topic?)` / `showDocument(idOrTitle)`: a folder of Markdown or
   * text files with front matter (`topic`, `title`, `audience`, `order`), or document objects. A document with an
   * `audience` is shown only to jobs of those roles.
   */
  documents?: DocumentsSource;
  /**
   * Dialog styles: reminders for a reply that would end the turn. The first that is due (the dialog has at
   * least `minDialogLength` messages, counting the user's and the agent's) is shown to the model instead of
   * ending the turn — once per turn of the user.
   */
  reminders?: readonly Reminder[];
  /** The dialog channel: receives the user-facing replies of `MD_DIALOG` and `DIRECT` jobs. */
  onMessage?: OnMessage;
  /**
   * Hears the model's reply text of this agent's jobs as it streams in, before the reply is committed (see
   * {@link OnModelText}); `Statek.open({ onModelText })` hears every job's.
   */
  onModelText?: OnModelText;
  /** Code run in every job of this agent before the model is first asked (after the job's own warmup). */
  warmup?: WarmupSource;
  /**
   * Checks run on every model reply before it is committed. They run after those `POST_PROCESSORS` names: a list
   * of checks adds to the named ones rather than replacing them.
   */
  postProcessors?: readonly PostProcessor[];
  /**
   * The variable an agent event arrives in (`statek.pushAgentEvent(role, event)`: one job per event, the event
   * bound to this name). @default the one name the agent's warmup reads without declaring it
   */
  eventVariable?: string;
  /**
   * The agent's circuit breaker: after `failures` of its jobs ended `FAILED` in a row — or one failed in its
   * warmup — loops and events create no more of its jobs until `statek.resetAgent(role)`. @default { failures: 3 }
   */
  breaker?: AgentBreakerOptions;
}

/** What {@link AgentOptions.breaker} accepts. */
export interface AgentBreakerOptions {
  /** Jobs ended `FAILED` in a row that open the breaker (at least 1). @default 3 */
  failures?: number;
}

/** Default of {@link AgentBreakerOptions.failures}. */
export const DEFAULT_BREAKER_FAILURES = 3;

/** What {@link Agent.fromPromptFile} takes besides the file: the parts of an agent that are code, and settings that win over the file's. */
export type PromptFileAgentOptions = Omit<AgentOptions, "role" | "systemPrompt" | "metadata"> & {
  /** Overrides the role given by the file (`# ROLE:` or the file name). */
  role?: string;
};

/** What an agent keeps for its jobs' own settings (see {@link agentForJob}). */
interface AgentDefaults {
  style: ChatStyle;
  /** True when the agent's prompt is the default one, which is written for one chat style. */
  defaultPrompt: boolean;
  /** The post-processors given in code (those named in metadata come before them). */
  codePostProcessors: readonly PostProcessor[];
  /** What the agent was made from (for {@link withDefinitionFiles}). */
  options: AgentOptions;
}

const defaults = new WeakMap<Agent, AgentDefaults>();

/** The `delegates` option, checked: agents with distinct roles. */
function checkDelegates(given: unknown, label: string): readonly Agent[] {
  if (given === undefined) return Object.freeze([]);
  if (!Array.isArray(given)) throw new TypeError(`${label}: delegates must be a list of agents, got ${kindOf(given)}`);
  const roles = new Set<string>();
  for (const candidate of given) {
    if (!(candidate instanceof Agent)) throw new TypeError(`${label}: every entry of delegates must be an Agent (got ${kindOf(candidate)})`);
    if (roles.has(candidate.role)) throw new TypeError(`${label}: delegates lists two agents with the role '${candidate.role}'`);
    roles.add(candidate.role);
  }
  return Object.freeze([...(given as Agent[])]);
}

/**
 * The system prompt of an agent that gives none: how to reply in its chat style, that variables persist, how to
 * finish, the workspace's isolation, the variables in scope, the tools with their parameter types, and — when
 * the agent has them — the `brief`/`docstr` tools that print more documentation.
 */
function defaultSystemPrompt(style: ChatStyle, registry: ToolRegistry): string {
  const rules = chatStyleRules(style);
  const documentation = registry.get("brief") === briefTool && registry.get("docstr") === docstrTool
    ? "\n\nFor more documentation, brief(x, method?) prints the short form of a tool, function, class, object or method, " +
      "and docstr(x, method?) its TypeScript declaration with JSDoc."
    : "";
  return "You are an agent working in a durable TypeScript workspace. " + rules.instructions +
    " Variables you declare at the top level persist between steps. " +
    (rules.dialog ? "Call exit(result) to end the job for good.\n" : "Call exit(result) when the task is done.\n") +
    // `{workspace_isolation}` is filled from the executor in use (sandbox or not), never from the agent.
    "{workspace_isolation}\n" + WORKSPACE_GLOBALS_NOTE + "\n\n" +
    "Available variables: {shared_var_names}{shared_memory}\n" +
    "Available tools (call them from your code; each returns a promise you can await):\n{typed_brief_tools}" + documentation +
    knowledgeNote(registry);
}

/** What the default prompt says of the tools that consult the agent's knowledge, when it has them. */
function knowledgeNote(registry: ToolRegistry): string {
  const notes: string[] = [];
  if (registry.get("showExample")) notes.push("Worked examples of tasks like yours: listExamples(start?, limit?) lists them, showExample(id) prints one.");
  if (registry.get("showDocument")) {
    notes.push("Documents you can read: listDocuments(topic?) lists the topics, or a topic's documents; showDocument(idOrTitle) prints one.");
  }
  if (registry.get("panic") === panicTool) notes.push("If the task turns out harder than it looked, call panic() for a stronger model and more detailed instructions.");
  return notes.length ? `\n\n${notes.join("\n")}` : "";
}
/**
 * An agent definition.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   role: "calendar_assistant",
 *   systemPrompt: "You help users manage their calendar.\nTools:\n{typed_brief_tools}",
 *   tools: [findEmptySlot, moveMeeting],
 *   model: "openai/gpt-5-mini",
 *   chatStyle: "MARKDOWN",
 *   harness: { maxTurns: 20, maxCost: 0.5 },
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
  /** The agents this one delegates sub-tasks to (`delegateTask`). */
  readonly delegates: readonly Agent[];
  /** Names of the tools agent code may call, or `undefined` for every non-hidden tool. */
  readonly allowedTools: readonly string[] | undefined;
  readonly context: Readonly<Record<string, unknown>>;
  /**
   * The metadata each job of this agent starts with: the given metadata with the typed settings written over
   * their names (`chatStyle` → `CHAT_STYLE`, a model string → `MODEL`, …); harness limits are in {@link harness}.
   */
  readonly metadata: JobMetadata;
  /** The model object, when one was given (a model string is `metadata.MODEL`). */
  readonly model: LanguageModel | undefined;
  /** This agent's harness limits (`harness`, over `MAX_…` metadata); over `Statek.open({ harness })` and the defaults. */
  readonly harness: HarnessLimits;
  readonly onMessage: OnMessage | undefined;
  readonly onModelText: OnModelText | undefined;
  readonly warmup: readonly WarmupBlock[];
  /** The post-processors of `metadata.POST_PROCESSORS`, then those given in code. */
  readonly postProcessors: readonly PostProcessor[];
  /** What the agent does (`description`, else metadata `DESCRIPTION`). */
  readonly description: string | undefined;
  /** The agent's examples, sorted and numbered (their ids). */
  readonly examples: readonly Example[];
  /** The agent's documents, sorted. */
  readonly documents: readonly AgentDocument[];
  /** Reminders of a dialog agent (see {@link AgentOptions.reminders}). */
  readonly reminders: readonly Reminder[];
  /** The variable agent events arrive in, when given (else found from the warmup when an event is taken). */
  readonly eventVariable: string | undefined;
  /** The circuit breaker's settings, defaults applied. */
  readonly breaker: Readonly<Required<AgentBreakerOptions>>;

  constructor(options: AgentOptions) {
    if (typeof options !== "object" || options === null) throw new TypeError(`Agent: expected options such as { role: "assistant" }, got ${kindOf(options)}`);
    if (typeof options.role !== "string" || !/^[A-Za-z0-9_.:-]+$/.test(options.role)) {
      throw new TypeError(`Agent: role must be a non-empty name of letters, digits, _ . : - (got ${JSON.stringify(options.role)})`);
    }
    const label = `Agent '${options.role}'`;
    const tools = agentTools(options.tools, label);
    const names = new Set<string>();
    for (const candidate of tools) {
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
      if (!isTool(candidate)) throw new TypeError(`${label}: every entry of systemTools must be made with tool() (got ${kindOf(candidate)})`);
    }
    const delegates = checkDelegates(options.delegates, label);
    // The settings: typed options over metadata; harness limits leave the metadata for `harness`.
    const given = checkMetadataObject(options.metadata, label);
    if (typeof options.model === "string") given.MODEL = checkModelString(options.model, label);
    else if (options.model !== undefined && (typeof options.model !== "object" || options.model === null)) {
      throw new TypeError(`${label}: model must be an AI SDK language model or a model string such as "openai/gpt-5-mini", got ${kindOf(options.model)}`);
    }
    if (options.description !== undefined && typeof options.description !== "string") throw new TypeError(`${label}: description must be a string`);
    if (options.description !== undefined) given.DESCRIPTION = options.description;
    const withTyped = applyTypedSettings(given, options, label);
    const harness = { ...harnessFromMetadata(withTyped, label), ...checkHarnessOption(options.harness, options.limits, label) };
    const metadata = Object.freeze(withoutHarnessKeys(withTyped));
    // What the model consults: examples and documents, each with its tools; panic() where difficulty matters.
    const examples = loadExamples(options.examples, label);
    const documents = loadDocuments(options.documents, label);
    const knowledge = [
      ...(examples.length ? exampleTools(examples) : []),
      ...(documents.length ? documentTools(documents) : []),
      ...(usesDifficulty(metadata, options.systemPrompt, examples) ? [panicTool] : []),
    ];
    const registry = new ToolRegistry({ tools: [...tools, ...contextTools], systemTools: [...systemTools, ...knowledge, ...(delegates.length ? [delegateTaskTool(delegates)] : [])] });
    const style = checkMetadataSettings(metadata, registry.all, label);
    if (options.onMessage !== undefined && typeof options.onMessage !== "function") throw new TypeError(`${label}: onMessage must be a function`);
    if (options.onModelText !== undefined && typeof options.onModelText !== "function") throw new TypeError(`${label}: onModelText must be a function`);
    const codePostProcessors: PostProcessor[] = [];
    for (const processor of options.postProcessors ?? []) {
      if (typeof processor?.process !== "function" || typeof processor.name !== "string") {
        throw new TypeError(`${label}: every post-processor needs a name and a process(draft, context) method`);
      }
      codePostProcessors.push(processor);
    }
    if (options.eventVariable !== undefined && !(typeof options.eventVariable === "string" && isIdentifier(options.eventVariable))) {
      throw new TypeError(`${label}: eventVariable must be an identifier such as "order", got ${JSON.stringify(options.eventVariable) ?? kindOf(options.eventVariable)}`);
    }
    const breaker = options.breaker ?? {};
    if (typeof breaker !== "object" || breaker === null) throw new TypeError(`${label}: breaker must be an object such as { failures: 3 }, got ${kindOf(breaker)}`);
    const failures = breaker.failures ?? DEFAULT_BREAKER_FAILURES;
    if (!(Number.isSafeInteger(failures) && failures >= 1)) throw new TypeError(`${label}: breaker.failures must be an integer of at least 1, got ${String(failures)}`);
    this.role = options.role;
    this.eventVariable = options.eventVariable;
    this.breaker = Object.freeze({ failures });
    this.systemPrompt = options.systemPrompt ?? defaultSystemPrompt(style, registry);
    this.tools = Object.freeze([...tools]);
    this.registry = registry;
    this.delegates = delegates;
    this.allowedTools = options.allowedTools === undefined ? undefined : Object.freeze(checkAllowedTools(this, options.allowedTools, label));
    this.context = Object.freeze({ ...options.context });
    this.metadata = metadata;
    this.model = typeof options.model === "string" ? undefined : options.model;
    this.harness = Object.freeze(harness);
    this.onMessage = options.onMessage;
    this.onModelText = options.onModelText;
    this.warmup = Object.freeze(parseWarmup(options.warmup, `${label}: warmup`));
    this.postProcessors = Object.freeze([...namedPostProcessors(metadata), ...codePostProcessors]);
    this.description = typeof metadata.DESCRIPTION === "string" ? metadata.DESCRIPTION : undefined;
    this.examples = Object.freeze(examples);
    this.documents = Object.freeze(documents);
    this.reminders = Object.freeze(checkReminders(options.reminders, label));
    defaults.set(this, { style, defaultPrompt: options.systemPrompt === undefined, codePostProcessors: Object.freeze(codePostProcessors), options: { ...options } });
  }

  /**
   * An agent from a prompt definition file (metadata lines, `# System Prompt`, the prompt text); the parts
   * that are code come in `options`, and settings given there win over the file's.
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
    const { harness, ...rest } = options;
    const label = `Agent.fromPromptFile(${JSON.stringify(path)})`;
    return new Agent({
      ...rest,
      role: options.role ?? definition.role,
      systemPrompt: definition.systemPrompt,
      metadata: definition.metadata,
      harness: { ...definition.limits, ...checkHarnessOption(harness, (options as { limits?: unknown }).limits, label) },
    });
  }
}

/**
 * The agent with its definition files applied (`Statek.open({ promptDir, warmupDir })`): the prompt file's system
 * prompt, its metadata over the agent's (typed options given in code still win, as with `Agent.fromPromptFile`)
 * and its harness limits; the warmup file's blocks after the agent's own. A new agent of the same role; the
 * agent itself when there is nothing to apply.
 */
export function withDefinitionFiles(agent: Agent, files: { prompt?: PromptDefinition; warmup?: readonly WarmupBlock[] }): Agent {
  const own = defaults.get(agent);
  if (!own || (!files.prompt && !files.warmup?.length)) return agent;
  const { options } = own;
  const prompt = files.prompt;
  return new Agent({
    ...options,
    ...(prompt ? {
      systemPrompt: prompt.systemPrompt,
      metadata: { ...options.metadata, ...prompt.metadata },
      harness: { ...prompt.limits, ...checkHarnessOption(options.harness, options.limits, `Agent '${agent.role}'`) },
      limits: undefined,
    } : {}),
    ...(files.warmup?.length ? { warmup: [...parseWarmup(options.warmup), ...files.warmup] } : {}),
  });
}

/** Whether an agent's jobs depend on their difficulty: a `MODEL` mapping, a starting level, prompt sections or examples of a level. */
function usesDifficulty(metadata: JobMetadata, prompt: string | undefined, examples: readonly Example[]): boolean {
  const model = metadata.MODEL;
  let mapping = false;
  try {
    mapping = typeof model === "string" && parseModelChoice(model).kind === "mapping";
  } catch {
    // A bad mapping is reported by the settings check, with the agent's name.
  }
  return mapping || (metadata.DEFAULT_DIFFICULTY !== undefined && metadata.DEFAULT_DIFFICULTY !== null) ||
    (prompt !== undefined && hasDifficultySections(prompt)) || examples.some((example) => example.difficulty !== undefined);
}

/** The post-processors a job's `POST_PROCESSORS` metadata names. */
function namedPostProcessors(metadata: JobMetadata): PostProcessor[] {
  return typeof metadata.POST_PROCESSORS === "string" ? parsePostProcessors(metadata.POST_PROCESSORS) : [];
}

/**
 * The agent as one job runs it: the registered agent with the settings the job was submitted with that change
 * what the agent object itself holds — its harness limits (`MAX_…` metadata), its `POST_PROCESSORS`, and, for an
 * agent with the default prompt, the prompt of the job's chat style. Without such settings it is `agent` itself.
 * Throws a `TypeError` for a setting the job's stored metadata gets wrong.
 */
export function agentForJob(agent: Agent, metadata: JobMetadata): Agent {
  const own = defaults.get(agent);
  if (!own) return agent;
  const overrides: PropertyDescriptorMap = {};
  const harness = harnessFromMetadata(metadata, "job metadata");
  if (Object.keys(harness).length) overrides.harness = { value: Object.freeze({ ...agent.harness, ...harness }) };
  if (metadata.POST_PROCESSORS !== agent.metadata.POST_PROCESSORS) {
    overrides.postProcessors = { value: Object.freeze([...namedPostProcessors(metadata), ...own.codePostProcessors]) };
  }
  const style = chatStyleOf(metadata);
  if (own.defaultPrompt && style !== own.style) overrides.systemPrompt = { value: defaultSystemPrompt(style, agent.registry) };
  // The job's agent is the registered one underneath (same tools, context, model, dialog channel), so code that
  // reads any other field — or checks `instanceof Agent` — sees the agent itself.
  return Object.keys(overrides).length ? Object.create(agent, overrides) : agent;
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
