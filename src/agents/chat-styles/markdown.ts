/**
 * @module
 * The `MARKDOWN` chat style (the default): code comes from ```` ```ts ```` fences (also `typescript`, `js`,
 * `javascript`); prose and other fences become `//` comments so the stored cell reads like the reply, and the
 * model sees its reply back as one ```` ```ts ```` block; console output is shown as is.
 */
import type { ChatStyleRules } from "./chat-style.ts";
import { CODE_LANGUAGES, callsExit, codeFromFences } from "./fences.ts";

/** The cell to run for a reply: fenced code, with the prose around it as comments; `null` when empty. */
export function extractMarkdownCode(text: string): string | null {
  const code = codeFromFences(text, (fence) => CODE_LANGUAGES.has(fence.language));
  if (code !== null) return code;
  // No code: the prose alone, as comments, so the model sees what it said (and the cell reports no code).
  const prose = text.split("\n").filter((line) => line.trim()).map((line) => `// ${line.trimEnd()}`);
  return prose.length ? prose.join("\n") : null;
}

/** How a stored cell is shown back to the model in an assistant message. */
export function formatMarkdownCode(code: string): string {
  return "```ts\n" + code + "\n```";
}

/** How console output is shown to the model. */
export function formatMarkdownConsole(lines: readonly string[]): string {
  return lines.join("\n");
}

/** The `MARKDOWN` rules. */
export const MARKDOWN_STYLE: ChatStyleRules = {
  name: "MARKDOWN",
  dialog: false,
  instructions: "Write TypeScript in ```ts fenced blocks; each reply's code runs as one cell and its console output comes back to you.",
  parseReply: (text) => ({ code: extractMarkdownCode(text), dialog: "" }),
  formatReply: (reply) => (reply.code !== null ? formatMarkdownCode(reply.code) : reply.text),
  formatCode: formatMarkdownCode,
  formatConsole: formatMarkdownConsole,
  isFinal: (reply) => callsExit(reply.code),
};
