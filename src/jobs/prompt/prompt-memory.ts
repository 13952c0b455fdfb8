/**
 * @module
 * What a job's previous request was built from, kept in its warm session (`job-sessions.ts`) so the next step
 * does not rebuild its prompt from the whole history: the conversation grows by the records added since
 * ({@link MessageBuilder}), the system prompt and the formal tools' payloads (JSON Schemas made from the tools'
 * Zod schemas: the costliest part of a request for an agent with many tools) are made again only when something
 * they are made from changed, and the model's actions are counted from where the count stopped. Each gives
 * exactly what building from scratch gives; a job without a warm session builds from scratch (a fresh memory).
 */
import { renderPrompt, type PromptContext } from "../../docs/render-prompt.ts";
import type { ModelMessage, ModelToolPayload } from "../../models/model-request.ts";
import type { JsonValue } from "../../store/store.ts";
import type { ChatStyle } from "../../tools/chat-style.ts";
import { enumRegistrations } from "../../tools/enum-members.ts";
import type { Tool } from "../../tools/tool.ts";
import { MessageBuilder, type BuildMessagesOptions } from "./build-messages.ts";
import type { ChatStyleRules } from "../../agents/chat-styles/chat-style.ts";
import { countActions } from "./count-actions.ts";
import { requestTools } from "./request-tools.ts";
import type { HistoryRecord } from "../history/history.ts";

/** The inputs of the last rendered system prompt, and the prompt. */
interface RenderedSystem {
  template: string;
  tools: readonly Tool[];
  sharedVars: PromptContext["sharedVars"];
  /** The parameters as JSON: a job's row is read afresh each step, so they are compared by value. */
  params: string;
  /** Declarations name a registered enum's members, so a registration made since may change them. */
  enums: number;
  sharedMemory: string | undefined;
  text: string;
}

/** The inputs of the last formal tools' payloads, and the payloads (frozen: every later request shares them). */
interface OfferedTools {
  registry: readonly Tool[];
  style: ChatStyle;
  scope: unknown;
  schema: unknown;
  provider: string;
  enums: number;
  payloads: ModelToolPayload[];
}

/** The actions counted so far, over which records, in which style. */
interface CountedActions {
  style: ChatStyleRules;
  read: number;
  last: HistoryRecord | undefined;
  count: number;
}

/** One job's prompt-building state between its steps. */
export class PromptMemory {
  #builder: MessageBuilder | undefined;
  #system: RenderedSystem | undefined;
  #tools: OfferedTools | undefined;
  #actions: CountedActions | undefined;

  /** The conversation for a request after `history` (what `buildMessages(history, options)` gives). */
  messages(history: readonly HistoryRecord[], options: BuildMessagesOptions): ModelMessage[] {
    if (!this.#builder?.renders(options)) this.#builder = new MessageBuilder(options);
    return this.#builder.messagesFor(history);
  }

  /** The system prompt (what `renderPrompt(template, context)` gives). */
  system(template: string, context: PromptContext): string {
    const params = JSON.stringify(context.params);
    const enums = enumRegistrations();
    const last = this.#system;
    if (last && last.template === template && last.sharedVars === context.sharedVars && last.params === params && last.enums === enums &&
      last.sharedMemory === context.sharedMemory && sameItems(last.tools, context.tools)) {
      return last.text;
    }
    const text = renderPrompt(template, context);
    this.#system = { template, tools: context.tools, sharedVars: context.sharedVars, params, enums, sharedMemory: context.sharedMemory, text };
    return text;
  }

  /**
   * The formal tools to offer (what `requestTools(agent, style, metadata, provider)` gives, frozen throughout);
   * throws as it does.
   */
  tools(
    agent: { readonly registry: { readonly all: readonly Tool[] } }, style: ChatStyle, metadata: Readonly<Record<string, JsonValue>>, provider: string,
  ): ModelToolPayload[] {
    const key = {
      registry: agent.registry.all, style, scope: metadata.LLM_TOOLS_SCOPE, schema: metadata.TOOLS_SCHEMA, provider,
      enums: enumRegistrations(),
    };
    const last = this.#tools;
    if (last && last.registry === key.registry && last.style === style && last.scope === key.scope && last.schema === key.schema &&
      last.provider === provider && last.enums === key.enums) {
      return last.payloads;
    }
    const payloads = deepFreeze(requestTools(agent, style, metadata, provider));
    this.#tools = { ...key, payloads };
    return payloads;
  }

  /** The model's actions in `history` (what `countActions(history, style)` gives). */
  actions(history: readonly HistoryRecord[], style: ChatStyleRules): number {
    let counted = this.#actions;
    const continues = counted && counted.style === style && history.length >= counted.read &&
      (counted.read === 0 || history[counted.read - 1] === counted.last);
    if (!counted || !continues) {
      counted = { style, read: 0, last: undefined, count: 0 };
    }
    counted.count += countActions(history.slice(counted.read), style);
    counted.read = history.length;
    counted.last = history[history.length - 1];
    this.#actions = counted;
    return counted.count;
  }
}

function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (typeof value === "object" && value !== null && !seen.has(value)) {
    seen.add(value);
    for (const member of Object.values(value)) deepFreeze(member, seen);
    Object.freeze(value);
  }
  return value;
}

function sameItems<T>(left: readonly T[], right: readonly T[]): boolean {
  return left.length === right.length && left.every((item, index) => item === right[index]);
}
