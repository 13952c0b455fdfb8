/**
 * @module
 * The `MARKDOWN` chat style (DESIGN.md §8.2): code comes from ```` ```ts ```` fences (also `typescript`,
 * `js`, `javascript`); prose and other fences become `//` comments so the stored cell reads like the reply;
 * console output is shown to the model as is.
 */

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const CODE_LANGUAGES = new Set(["ts", "typescript", "js", "javascript"]);

/** The cell to run for a reply: fenced code, with the prose around it as comments; `null` when empty. */
export function extractMarkdownCode(text: string): string | null {
  const parts: string[] = [];
  let position = 0;
  const prose = (chunk: string) => {
    for (const line of chunk.split("\n")) if (line.trim()) parts.push(`// ${line.trimEnd()}`);
  };
  for (const match of text.matchAll(FENCE)) {
    const language = match[1]!.toLowerCase();
    if (!CODE_LANGUAGES.has(language)) continue;
    prose(text.slice(position, match.index));
    const code = match[2]!.trim();
    if (code) parts.push(code);
    position = match.index! + match[0].length;
  }
  prose(text.slice(position));
  return parts.length ? parts.join("\n") : null;
}

/** How a stored cell is shown back to the model in an assistant message. */
export function formatMarkdownCode(code: string): string {
  return "```ts\n" + code + "\n```";
}

/** How console output is shown to the model. */
export function formatMarkdownConsole(lines: readonly string[]): string {
  return lines.join("\n");
}
