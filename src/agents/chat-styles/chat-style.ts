/**
 * @module
 * The chat styles: how a model's reply becomes code and dialog text, how the model sees its
 * earlier replies and the console output, and when a reply ends the turn. Each style is one file
 * implementing {@link ChatStyleRules}; `build-messages.ts` and the step use only this interface.
 */
import type { JsonValue } from "../../store/store.ts";
import { CHAT_STYLES, DEFAULT_CHAT_STYLE, isChatStyle, type ChatStyle } from "../../tools/chat-style.ts";

// The names are listed once, below the tools that target them; the rules of each style live here.
export { CHAT_STYLES, isChatStyle, type ChatStyle };

/** A reply as a chat style reads it. */
export interface ParsedReply {
  /** The cell to run (prose kept as `//` comments), or `null` when the reply has no code to run. */
  code: string | null;
  /** The text meant for the user (dialog styles), `""` when there is none. */
  dialog: string;
}

/** The parts of a committed reply a style looks at. */
export interface ReplyShape {
  text: string;
  code: string | null;
  toolCalls: readonly unknown[];
  /** Why the model stopped (`stop`, `length`, `content-filter`, …); absent in older records. */
  finishReason?: string;
}

/** The rules of one chat style. */
export interface ChatStyleRules {
  readonly name: ChatStyle;
  /** Dialog styles send prose (or plain text) to the user and end the turn on a reply without code. */
  readonly dialog: boolean;
  /** How to reply in this style, for the default system prompt. */
  readonly instructions: string;
  /** Reads a reply's text. */
  parseReply(text: string): ParsedReply;
  /** How the model sees an earlier reply of its own (the assistant message text). */
  formatReply(reply: ReplyShape): string;
  /** How the model sees code it did not write itself (warmup blocks). */
  formatCode(code: string): string;
  /** How console output is shown to the model. */
  formatConsole(lines: readonly string[]): string;
  /**
   * Whether a reply is a final answer: in the dialog styles it ends the turn (and the job, until the user
   * writes again) — it has something for the user and nothing to run; in the others it is a reply whose code
   * calls `exit(…)`. Post-processors such as `FinalCheck` look at it. Replies that are not run at all (cut off,
   * filtered, empty) are decided before this: see `reply-disposition.ts`.
   */
  isFinal(reply: ReplyShape): boolean;
}

/** The style a job runs in, from its metadata. */
export function chatStyleOf(metadata: Readonly<Record<string, JsonValue>>): ChatStyle {
  const value = metadata.CHAT_STYLE;
  if (value === undefined || value === null || value === "") return DEFAULT_CHAT_STYLE;
  const name = String(value).trim().toUpperCase();
  if (!isChatStyle(name)) throw new TypeError(`unknown CHAT_STYLE ${JSON.stringify(value)} (expected ${CHAT_STYLES.join(", ")})`);
  return name;
}

