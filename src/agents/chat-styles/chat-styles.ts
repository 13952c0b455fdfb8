/**
 * @module
 * The rules of every chat style, by name.
 */
import type { ChatStyle, ChatStyleRules } from "./chat-style.ts";
import { CONSOLE_STYLE } from "./console.ts";
import { DIRECT_STYLE } from "./direct.ts";
import { MARKDOWN_STYLE } from "./markdown.ts";
import { MD_DIALOG_STYLE } from "./md-dialog.ts";

const RULES: Readonly<Record<ChatStyle, ChatStyleRules>> = {
  CONSOLE: CONSOLE_STYLE,
  MARKDOWN: MARKDOWN_STYLE,
  MD_DIALOG: MD_DIALOG_STYLE,
  DIRECT: DIRECT_STYLE,
};

/** The rules of a chat style. */
export function chatStyleRules(style: ChatStyle): ChatStyleRules {
  return RULES[style];
}

/** Wraps formatted console output in `<TAG>…</TAG>` when an XML box is configured (`XML_BOX_CONSOLE`). */
export function xmlBox(text: string, tag: string | undefined): string {
  return tag ? `<${tag}>\n${text}\n</${tag}>` : text;
}
