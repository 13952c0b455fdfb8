/**
 * @module
 * Splitting a reply at Markdown code fences, shared by the chat styles.
 */

/** A fenced block: its language tag (lower-cased, `""` when none) and its body. */
export interface Fence {
  language: string;
  body: string;
  /** Where the fence starts and ends in the text (the end is after the closing fence, or the text's end). */
  start: number;
  end: number;
}

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;

/** The languages whose fences are code to run. */
export const CODE_LANGUAGES: ReadonlySet<string> = new Set(["ts", "typescript", "js", "javascript"]);

/** Every fenced block of `text`, in order. An unclosed fence runs to the end of the text. */
export function findFences(text: string): Fence[] {
  return [...text.matchAll(FENCE)].map((match) => ({
    language: match[1]!.toLowerCase(),
    body: match[2]!,
    start: match.index!,
    end: match.index! + match[0].length,
  }));
}

/**
 * The cell for a reply: the bodies of the fences `isCode` accepts, with the text around them as `//` comments;
 * `null` when no accepted fence has code.
 */
export function codeFromFences(text: string, isCode: (fence: Fence) => boolean): string | null {
  const parts: string[] = [];
  let position = 0;
  let hasCode = false;
  const prose = (chunk: string) => {
    for (const line of chunk.split("\n")) if (line.trim()) parts.push(`// ${line.trimEnd()}`);
  };
  for (const fence of findFences(text)) {
    if (!isCode(fence)) continue;
    prose(text.slice(position, fence.start));
    const code = fence.body.trim();
    if (code) {
      parts.push(code);
      hasCode = true;
    }
    position = fence.end;
  }
  prose(text.slice(position));
  return hasCode ? parts.join("\n") : null;
}

/** `text` without its code fences (ts/js), blank-line runs collapsed, trimmed: what a dialog style sends the user. */
export function textOutsideCode(text: string): string {
  let result = "";
  let position = 0;
  for (const fence of findFences(text)) {
    if (!CODE_LANGUAGES.has(fence.language)) continue;
    result += text.slice(position, fence.start);
    position = fence.end;
  }
  result += text.slice(position);
  return result.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** Whether the code calls `exit(…)` at all (a final answer in the code styles). */
export function callsExit(code: string | null): boolean {
  return code !== null && /(^|[^\w$.])exit\s*\(/.test(code);
}
