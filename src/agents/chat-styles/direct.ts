/**
 * @module
 * The `DIRECT` chat style: the model talks to the user in plain text and runs code only through the `ts_cli`
 * system tool (one parameter, `code`), whose console output comes back as the tool result. Fenced code in the
 * text is not run. A reply without tool calls ends the turn.
 */
import type { ChatStyleRules } from "./chat-style.ts";
import { formatMarkdownCode } from "./markdown.ts";
import { textOutsideCode } from "./fences.ts";

/** The `DIRECT` rules. */
export const DIRECT_STYLE: ChatStyleRules = {
  name: "DIRECT",
  dialog: true,
  instructions: "You are talking with the user: your text is sent to them. To run TypeScript, call the ts_cli tool with the code; " +
    "its console output is the tool's result. A reply without tool calls ends your turn.",
  parseReply: (text) => ({ code: null, dialog: textOutsideCode(text) }),
  formatReply: (reply) => reply.text,
  // Warmup code is shown as a ts_cli call by build-messages; this is only for a plain-text fallback.
  formatCode: formatMarkdownCode,
  formatConsole: (lines) => lines.join("\n"),
  isFinal: (reply) => reply.toolCalls.length === 0,
};
