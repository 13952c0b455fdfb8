/**
 * @module
 * Turns a job's history into the messages of the next model request, in the job's chat style. History is a
 * sequence of *windows*: a model response (or a warmup block) followed by what executing it produced. Each
 * window becomes the assistant message (the style's view of the reply, its reasoning and formal tool calls;
 * never empty), one tool message with the results of those calls, the console output as a user message
 * (formatted and optionally XML-boxed), and then the user messages and post-processor notes that arrived during
 * the window. Failed model attempts are history, not conversation: the model does not see them.
 */
import type { ModelMessage } from "../../models/model-request.ts";
import type { ToolCallRecord } from "../../tools/call-tool.ts";
import type { ChatStyleRules } from "../../agents/chat-styles/chat-style.ts";
import { xmlBox } from "../../agents/chat-styles/chat-styles.ts";
import { MARKDOWN_STYLE } from "../../agents/chat-styles/markdown.ts";
import type { HistoryRecord, ModelResponseRecord, RecordedToolCall, WarmupRecord } from "../history/history.ts";
import { TS_CLI } from "../../agents/chat-styles/ts-cli-tool.ts";

/** The user message that opens a job with no user message of its own. */
export const KICKOFF_MESSAGE = "The workspace is ready. Begin.";

/** Shown when executing a cell printed nothing, so the model knows it ran. */
export const NO_OUTPUT = "(no output)";

/** Shown as the result of a formal call that was not run (the job exited before it). */
export const NOT_RUN = "(not run: the job exited before this call)";

/**
 * The text of an earlier reply that had neither text nor tool calls: providers reject an assistant message
 * with no content (Gemini: `parts: []`) or an empty text part, so the model sees this instead.
 */
export const EMPTY_REPLY = "(empty reply)";

/** How {@link buildMessages} renders the history. */
export interface BuildMessagesOptions {
  /** The job's chat style. @default MARKDOWN */
  style?: ChatStyleRules;
  /** The XML tag to box console output in (`XML_BOX_CONSOLE`), if any. */
  xmlBox?: string;
  /**
   * The provider of the model the request goes to (`model.provider`). Reasoning parts are replayed only to
   * the provider that produced them; others cannot read them. @default replay all
   */
  provider?: string;
  /** Appended to each of the user's messages as ` (hint)`: the language hint of a job with a locale. */
  hint?: string;
}

type AssistantPart = Extract<ModelMessage, { role: "assistant" }>["content"][number];

interface Window {
  response?: ModelResponseRecord;
  warmup?: WarmupRecord;
  hidden: boolean;
  lines: string[];
  results: ToolCallRecord[];
  /** User messages and post-processor notes that arrived during the window, shown after its output (with their `seq`). */
  queued: Array<{ seq: number; text: string }>;
}

/**
 * The conversation for the next request. Never empty. Builds it from the whole history; a job stepped again and
 * again keeps a {@link MessageBuilder} instead, which gives the same messages from the records added since.
 */
export function buildMessages(history: readonly HistoryRecord[], options: BuildMessagesOptions = {}): ModelMessage[] {
  return new MessageBuilder(options).messagesFor(history);
}

/**
 * Builds the conversation of one job incrementally: the windows the history has closed are turned into messages
 * once and kept (frozen, so nobody can change what the next request reuses); the window still open — the latest
 * response and what executing it has produced so far — is rendered again for each request. Handed a history that
 * does not continue the one it has read (not the same records up to where it stopped), it starts over.
 */
export class MessageBuilder {
  readonly #style: ChatStyleRules;
  readonly #options: BuildMessagesOptions;
  /** The messages of the closed windows, and of records read outside any window. */
  #messages: ModelMessage[] = [];
  #window: Window | undefined;
  /** Words from outside the model read while no window was open, not yet turned into messages (with their `seq`). */
  #outside: Array<{ seq: number; text: string }> = [];
  /** How many history records have been read, and the last of them (to notice a history that is not ours). */
  #read = 0;
  #last: HistoryRecord | undefined;

  constructor(options: BuildMessagesOptions = {}) {
    this.#options = options;
    this.#style = options.style ?? MARKDOWN_STYLE;
  }

  /** Whether this builder renders as `options` asks (the same style, provider and console box). */
  renders(options: BuildMessagesOptions): boolean {
    return (options.style ?? MARKDOWN_STYLE) === this.#style && options.provider === this.#options.provider && options.xmlBox === this.#options.xmlBox &&
      options.hint === this.#options.hint;
  }

  /** The conversation for a request after `history`, which continues what this builder has read. Never empty. */
  messagesFor(history: readonly HistoryRecord[]): ModelMessage[] {
    if (history.length < this.#read || (this.#read > 0 && history[this.#read - 1] !== this.#last)) this.#restart();
    for (let index = this.#read; index < history.length; index++) this.#add(history[index]!);
    this.#read = history.length;
    this.#last = history[history.length - 1];
    const messages = [...this.#messages, ...this.#outside.map(({ text }) => userMessage(text))];
    if (this.#window) this.#emitWindow(this.#window, messages);
    if (messages.length === 0) messages.push(userMessage(KICKOFF_MESSAGE));
    return messages;
  }

  #restart(): void {
    this.#messages = [];
    this.#outside = [];
    this.#window = undefined;
    this.#read = 0;
    this.#last = undefined;
  }

  #add(record: HistoryRecord): void {
    const style = this.#style;
    switch (record.kind) {
      case "user-message":
        this.#say(this.#options.hint ? `${record.data.text} (${this.#options.hint})` : record.data.text, record.seq);
        break;
      case "reminder":
        this.#say(record.data.text, record.seq);
        break;
      case "post-processed": {
        const text = record.data.veto ?? record.data.note;
        if (text) this.#say(text, record.seq);
        break;
      }
      case "warmup":
        this.#close();
        this.#flushOutside();
        this.#window = { warmup: record.data, hidden: record.data.hidden, lines: [], results: [], queued: [] };
        if (record.data.hidden) break;
        {
          const parts: AssistantPart[] = [];
          if (record.data.code && style.name === "DIRECT") parts.push({ type: "tool-call", toolCallId: warmupCallId(record.data), toolName: TS_CLI, input: { code: record.data.code } });
          else if (record.data.code || !record.data.toolCalls?.length) parts.push({ type: "text", text: style.formatCode(record.data.code) });
          for (const call of record.data.toolCalls ?? []) parts.push(toolCallPart(call, false));
          this.#assistant(parts);
        }
        break;
      case "model-response": {
        // Messages pushed while this reply was being made come before it in the history, but it never saw them:
        // they are shown after it.
        const unseen = new Set(record.data.unseen ?? []);
        const waiting = [...this.#outside, ...(this.#window?.queued ?? [])];
        const carried = waiting.filter((entry) => unseen.has(entry.seq));
        if (carried.length) {
          this.#outside = this.#outside.filter((entry) => !unseen.has(entry.seq));
          if (this.#window) this.#window.queued = this.#window.queued.filter((entry) => !unseen.has(entry.seq));
        }
        this.#close();
        this.#flushOutside();
        const response = record.data;
        this.#window = { response, hidden: false, lines: [], results: [], queued: carried };
        const sameProvider = this.#options.provider === undefined || providerOf(response.model) === this.#options.provider;
        this.#assistant(sameProvider && response.parts ? replayParts(response) : assistantContent(response, style, sameProvider));
        break;
      }
      case "tool-call":
        if (this.#window && !this.#window.hidden && record.data.origin === "formal") this.#window.results.push(record.data);
        break;
      case "approval":
      case "child-ended":
        this.#say(waitNotice(record), record.seq);
        break;
      case "console":
        if (this.#window && !this.#window.hidden) this.#window.lines.push(record.data.text);
        break;
    }
  }

  /** Words from outside the model (a user, a post-processor, a notification): after the open window's output. */
  #say(text: string, seq: number): void {
    if (this.#window) this.#window.queued.push({ seq, text });
    else this.#outside.push({ seq, text });
  }

  /** Turns the words read outside any window into messages (a window opens after them). */
  #flushOutside(): void {
    for (const { text } of this.#outside.splice(0)) this.#messages.push(userMessage(text));
  }

  #assistant(content: AssistantPart[]): void {
    // Providers want the conversation to open with the user.
    if (this.#messages.length === 0) this.#messages.push(userMessage(KICKOFF_MESSAGE));
    const said = content.some((part) => (part.type === "text" && part.text !== "") || part.type === "tool-call");
    this.#messages.push(sealed({ role: "assistant", content: said ? content : [...content, { type: "text", text: EMPTY_REPLY }] }));
  }

  /** Ends the open window: what it produced becomes kept messages. */
  #close(): void {
    if (!this.#window) return;
    this.#emitWindow(this.#window, this.#messages);
    this.#window = undefined;
  }

  /** Appends what `window` produced — results, console output, then the words queued during it — to `messages`. */
  #emitWindow(window: Window, messages: ModelMessage[]): void {
    const style = this.#style;
    const box = this.#options.xmlBox;
    const user = (text: string) => messages.push(userMessage(text));
    const consoleText = (lines: readonly string[]) => xmlBox(style.formatConsole(lines), box);
    const { response, warmup, lines, results, queued } = window;
    const toolResults = (calls: readonly RecordedToolCall[]) => {
      const byId = new Map(results.map((record) => [record.callId, record]));
      return calls.map((call) => {
        const record = byId.get(call.id);
        // A failed call's own prints come first, so the model sees what it did before it failed.
        const printed = record?.error !== undefined && record.result ? `${record.result}\n` : "";
        let value = record ? (record.error !== undefined ? printed + record.error : record.result ?? "") : NOT_RUN;
        if (record && call.name === TS_CLI) value = xmlBox(value || NO_OUTPUT, box);
        const output = record?.error !== undefined ? { type: "error-text" as const, value } : { type: "text" as const, value };
        return { type: "tool-result" as const, toolCallId: call.id, toolName: call.name, output };
      });
    };
    if (!window.hidden && warmup) {
      // A warmup block: its formal calls' results, then (as a ts_cli result in DIRECT) the output of its code.
      const content: Extract<ModelMessage, { role: "tool" }>["content"] = [];
      if (warmup.code && style.name === "DIRECT") {
        const value = consoleText(lines.length ? lines : [NO_OUTPUT]);
        content.push({ type: "tool-result", toolCallId: warmupCallId(warmup), toolName: TS_CLI, output: { type: "text", value } });
      }
      content.push(...toolResults(warmup.toolCalls ?? []));
      if (content.length) messages.push(sealed({ role: "tool", content }));
      if (style.name !== "DIRECT" && (lines.length || !warmup.toolCalls?.length)) user(consoleText(lines.length ? lines : [NO_OUTPUT]));
    } else if (response) {
      if (response.toolCalls.length) messages.push(sealed({ role: "tool", content: toolResults(response.toolCalls) }));
      if (lines.length) user(consoleText(lines));
      else if (response.toolCalls.length === 0 && response.code !== null) user(consoleText([NO_OUTPUT]));
    }
    for (const { text } of queued) user(text);
  }
}

function userMessage(text: string): ModelMessage {
  return sealed({ role: "user", content: [{ type: "text", text }] });
}

/**
 * A message as plain data nobody can change: copied (its parts may share objects with history records, such as
 * a call's arguments, which must not be frozen under their owners) and frozen all the way down. A kept message is
 * handed to every later request of the job, so a model that changed one would change the job's next prompts.
 */
function sealed(message: ModelMessage): ModelMessage {
  return frozenCopy(message) as ModelMessage;
}

function frozenCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  const prototype = Object.getPrototypeOf(value);
  // Only plain data is copied; the records hold nothing else (they are read from JSON).
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const [key, entry] of Object.entries(value)) copy[key] = frozenCopy(entry);
  return Object.freeze(copy);
}

/**
 * An earlier reply as the job's style shows it: its reasoning and provider metadata (only for the provider
 * that produced them: others cannot read them), the style's view of its text, then its tool calls.
 */
function assistantContent(response: ModelResponseRecord, style: ChatStyleRules, sameProvider: boolean): AssistantPart[] {
  const content: AssistantPart[] = [];
  if (sameProvider) for (const part of response.reasoning) content.push(reasoningPart(part));
  const text = style.formatReply(response);
  if (text) content.push({ type: "text", text });
  for (const call of response.toolCalls) content.push(toolCallPart(call, sameProvider));
  return content;
}

/**
 * An earlier reply replayed to the provider that produced it, part by part in the order it came, each with its
 * metadata: an OpenAI Responses reasoning item is followed by the message or call that followed it, and the
 * text parts keep the ids (and Gemini thought signatures) that refer to them. Tool calls the parts do not name
 * (a damaged record) are added at the end, so every result still has its call.
 */
function replayParts(response: ModelResponseRecord): AssistantPart[] {
  const content: AssistantPart[] = [];
  const used = new Set<number>();
  for (const part of response.parts ?? []) {
    if (part.type === "reasoning") {
      const reasoning = response.reasoning[part.index];
      if (reasoning) content.push(reasoningPart(reasoning));
    } else if (part.type === "tool-call") {
      const call = response.toolCalls[part.index];
      if (call && !used.has(part.index)) {
        used.add(part.index);
        content.push(toolCallPart(call, true));
      }
    } else if (part.text !== "" || part.providerOptions) {
      content.push({ type: "text", text: part.text, ...(part.providerOptions ? { providerOptions: part.providerOptions } : {}) });
    }
  }
  response.toolCalls.forEach((call, index) => {
    if (!used.has(index)) content.push(toolCallPart(call, true));
  });
  return content;
}

function reasoningPart(part: ModelResponseRecord["reasoning"][number]): AssistantPart {
  return { type: "reasoning", text: part.text, ...(part.providerOptions ? { providerOptions: part.providerOptions } : {}) };
}

function toolCallPart(call: RecordedToolCall, withMetadata: boolean): AssistantPart {
  return {
    type: "tool-call",
    toolCallId: call.id,
    toolName: call.name,
    input: call.args,
    ...(withMetadata && call.providerOptions ? { providerOptions: call.providerOptions } : {}),
  };
}

/** The synthetic call id of a warmup block shown as a `ts_cli` call (`DIRECT`). */
export function warmupCallId(warmup: WarmupRecord): string {
  return `STATEK-WARMUP-${String(warmup.block).padStart(3, "0")}`;
}

/** The provider part of a recorded `provider/modelId`. */
function providerOf(modelName: string): string {
  const slash = modelName.indexOf("/");
  return slash < 0 ? modelName : modelName.slice(0, slash);
}

/** How the model reads a human's decision or a child's end (notifications, like a user's words). */
function waitNotice(record: Extract<HistoryRecord, { kind: "approval" | "child-ended" }>): string {
  if (record.kind === "approval") {
    const { tool, args, summary, approved, note, by } = record.data;
    const what = summary !== undefined ? `"${summary}"` : `${tool}(${args ?? "…"})`;
    return `[approval] ${by} ${approved ? "approved" : "denied"} ${what}${note ? `: ${note}` : ""}`;
  }
  const { childId, role, status, result, reason } = record.data;
  if (status === "DONE") return `[child job] ${childId} (${role}) finished${result ? `: ${result}` : ""}`;
  return `[child job] ${childId} (${role}) ${status === "CANCELLED" ? "was cancelled" : "failed"}${reason ? `: ${reason}` : ""}`;
}
