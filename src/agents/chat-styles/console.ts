/**
 * @module
 * The `CONSOLE` chat style: the whole reply is code, as if typed at a REPL. A reply that does use fences
 * (any language) has its fenced parts run and its prose kept as `//` comments. The model sees its code back as
 * it wrote it, and console output as REPL output: every line prefixed `> `.
 */
import type { ChatStyleRules } from "./chat-style.ts";
import { callsExit, codeFromFences, findFences } from "./fences.ts";

/** The `CONSOLE` rules. */
export const CONSOLE_STYLE: ChatStyleRules = {
  name: "CONSOLE",
  dialog: false,
  instructions: "Reply with TypeScript only, as if typing at a REPL: your whole reply runs as one cell, and its console output comes back prefixed with '> '.",
  parseReply(text) {
    if (findFences(text).length > 0) return { code: codeFromFences(text, () => true), dialog: "" };
    const code = text.trim();
    return { code: code === "" ? null : code, dialog: "" };
  },
  formatReply: (reply) => reply.code ?? reply.text,
  formatCode: (code) => code,
  formatConsole: (lines) => lines.join("\n").split("\n").map((line) => `> ${line}`).join("\n"),
  isFinal: (reply) => callsExit(reply.code),
};
