/**
 * @module
 * The `MD_DIALOG` chat style: a conversation with the user. Fenced ```` ```ts ```` code runs (prose kept as
 * `//` comments in the cell); the prose is sent to the user; console output comes back in a `<CONSOLE>` box so
 * the model can tell it from the user's words; a reply without code ends the turn.
 */
import { compileCell } from "../../workspace/cell-compiler.ts";
import type { ChatStyleRules } from "./chat-style.ts";
import { CODE_LANGUAGES, codeFromFences, textOutsideCode } from "./fences.ts";
import { formatMarkdownCode } from "./markdown.ts";

/** The `MD_DIALOG` rules. */
export const MD_DIALOG_STYLE: ChatStyleRules = {
  name: "MD_DIALOG",
  dialog: true,
  instructions: "You are talking with the user: your prose is sent to them. To run TypeScript, put it in ```ts fenced blocks; " +
    "its console output comes back in a <CONSOLE> box. A reply without code ends your turn.",
  parseReply: (text) => ({
    code: codeFromFences(text, (fence) => CODE_LANGUAGES.has(fence.language)),
    dialog: textOutsideCode(text),
  }),
  // The reply as written: its prose was said to the user, its fences are the code that ran.
  formatReply: (reply) => reply.text,
  formatCode: formatMarkdownCode,
  formatConsole: (lines) => `<CONSOLE>\n${lines.join("\n")}\n</CONSOLE>`,
  // Fenced comments alone are no code either.
  isFinal: (reply) => reply.toolCalls.length === 0 && (reply.code === null || compileCell(reply.code).kind === "empty"),
};
