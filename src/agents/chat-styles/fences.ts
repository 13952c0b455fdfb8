/**
 * @module
 * Splitting a reply at Markdown code fences, shared by the chat styles. Replies are hostile input: every
 * function here reads its text in one forward pass (no regular expression that can backtrack over it), so a
 * quarter of a megabyte of backticks costs milliseconds, not the tens of seconds the old fence expression took.
 */

/** A fenced block: its language tag (lower-cased, `""` when none) and its body. */
export interface Fence {
  language: string;
  body: string;
  /** Where the fence starts and ends in the text (the end is after the closing fence, or the text's end). */
  start: number;
  end: number;
}

const FENCE = "```";

/** The languages whose fences are code to run. */
export const CODE_LANGUAGES: ReadonlySet<string> = new Set(["ts", "typescript", "js", "javascript"]);

/**
 * Every fenced block of `text`, in order. A fence opens at three backticks (anywhere on a line) followed by
 * the end of that line — the language tag is the run of word characters, `+` and `-` right after the
 * backticks, the rest of the line is ignored — and closes at the next three backticks, or runs to the end of
 * the text when none follow. Backticks with no line break after them open nothing.
 *
 * @example
 * ```ts
 * findFences("Look:\n```ts\nprint(1)\n```").map((fence) => [fence.language, fence.body]); // [["ts", "print(1)\n"]]
 * ```
 */
export function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let position = 0;
  for (;;) {
    const start = text.indexOf(FENCE, position);
    if (start < 0) break;
    const lineEnd = text.indexOf("\n", start + FENCE.length);
    // No line break after this fence means none after any later one either.
    if (lineEnd < 0) break;
    let tagEnd = start + FENCE.length;
    while (tagEnd < lineEnd && isTagCharacter(text.charCodeAt(tagEnd))) tagEnd++;
    const bodyStart = lineEnd + 1;
    const close = text.indexOf(FENCE, bodyStart);
    const end = close < 0 ? text.length : close + FENCE.length;
    fences.push({
      language: text.slice(start + FENCE.length, tagEnd).toLowerCase(),
      body: text.slice(bodyStart, close < 0 ? text.length : close),
      start,
      end,
    });
    position = end;
  }
  return fences;
}

/** `[A-Za-z0-9_+-]`: the characters of a fence's language tag. */
function isTagCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 43 || code === 45;
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
  const pieces: string[] = [];
  let position = 0;
  for (const fence of findFences(text)) {
    if (!CODE_LANGUAGES.has(fence.language)) continue;
    pieces.push(text.slice(position, fence.start));
    position = fence.end;
  }
  pieces.push(text.slice(position));
  return tidyLines(pieces.join(""));
}

/**
 * Trailing spaces and tabs dropped from every line but the last, runs of three or more line breaks made two,
 * the whole trimmed — line by line, in linear time.
 */
function tidyLines(text: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  let blankRun = 0;
  lines.forEach((line, index) => {
    const tidy = index < lines.length - 1 ? withoutTrailingBlanks(line) : line;
    // A run of n line breaks holds n - 1 empty lines; keep at most one.
    if (tidy === "" && index > 0 && index < lines.length - 1) {
      if (++blankRun > 1) return;
    } else {
      blankRun = 0;
    }
    kept.push(tidy);
  });
  return kept.join("\n").trim();
}

function withoutTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return line.slice(0, end);
}

/**
 * The code inside a fence that wraps all of `code` (models sometimes fence the `code` argument of `ts_cli`),
 * else `code` unchanged. Only a fence that opens the text (after blank space) and closes at its end counts.
 *
 * @example
 * ```ts
 * stripOuterFence("```ts\nprint(1)\n```"); // "print(1)"
 * ```
 */
export function stripOuterFence(code: string): string {
  const start = firstNonBlank(code);
  if (!code.startsWith(FENCE, start)) return code;
  const lineEnd = code.indexOf("\n", start + FENCE.length);
  if (lineEnd < 0) return code;
  const end = lastNonBlank(code);
  const close = end - FENCE.length;
  if (close < lineEnd + 1 || !code.startsWith(FENCE, close)) return code;
  // The body runs to the last fence; a line break right before it is the fence's, not the code's.
  let bodyEnd = close;
  if (bodyEnd > lineEnd + 1 && code.charCodeAt(bodyEnd - 1) === 10) bodyEnd--;
  return code.slice(lineEnd + 1, bodyEnd);
}

function firstNonBlank(text: string): number {
  let index = 0;
  while (index < text.length && isBlank(text.charCodeAt(index))) index++;
  return index;
}

/** The index just after the last non-blank character. */
function lastNonBlank(text: string): number {
  let end = text.length;
  while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
  return end;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 11 || code === 12;
}

/** Whether the code calls `exit(…)` at all (a final answer in the code styles). */
export function callsExit(code: string | null): boolean {
  return code !== null && /(^|[^\w$.])exit\s*\(/.test(code);
}
