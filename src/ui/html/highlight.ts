/**
 * @module
 * Syntax highlighting of agent code, done on the server (no script in the browser): one linear pass that
 * marks comments, strings, numbers and keywords of TypeScript/JavaScript. It never fails: text it does not
 * understand is left plain, so hostile code only ever comes out escaped.
 */
import { html } from "hono/html";
import type { Html } from "./html-types.ts";

const KEYWORDS = new Set((
  "abstract as async await break case catch class const continue debugger declare default delete do else enum export extends false " +
  "finally for from function if implements import in instanceof interface keyof let new null of private protected public readonly return " +
  "satisfies static super switch this throw true try type typeof undefined var void while with yield"
).split(" "));

/** One highlighted token kind and its CSS class. */
const CLASSES = { comment: "tok-comment", string: "tok-string", number: "tok-number", keyword: "tok-keyword" } as const;

/** The code as HTML with `<span class="tok-…">` around comments, strings, numbers and keywords. */
export function highlight(code: string): Html {
  const parts: Html[] = [];
  let plainStart = 0;
  let index = 0;
  const mark = (end: number, kind: keyof typeof CLASSES) => {
    if (plainStart < index) parts.push(html`${code.slice(plainStart, index)}`);
    parts.push(html`<span class="${CLASSES[kind]}">${code.slice(index, end)}</span>`);
    index = end;
    plainStart = end;
  };
  while (index < code.length) {
    const char = code[index]!;
    const next = code[index + 1];
    if (char === "/" && next === "/") mark(lineEnd(code, index), "comment");
    else if (char === "/" && next === "*") {
      const close = code.indexOf("*/", index + 2);
      mark(close === -1 ? code.length : close + 2, "comment");
    } else if (char === '"' || char === "'" || char === "`") mark(stringEnd(code, index), "string");
    else if (/[0-9]/.test(char) && !isWordChar(code[index - 1])) {
      let end = index + 1;
      while (end < code.length && /[\w.]/.test(code[end]!)) end++;
      mark(end, "number");
    } else if (/[A-Za-z_$]/.test(char) && !isWordChar(code[index - 1])) {
      let end = index + 1;
      while (end < code.length && isWordChar(code[end])) end++;
      if (KEYWORDS.has(code.slice(index, end)) && code[index - 1] !== ".") mark(end, "keyword");
      else index = end;
    } else index++;
  }
  if (plainStart < code.length) parts.push(html`${code.slice(plainStart)}`);
  return html`${parts}`;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\w$]/.test(char);
}

function lineEnd(code: string, from: number): number {
  const end = code.indexOf("\n", from);
  return end === -1 ? code.length : end;
}

/** The end of a string literal starting at `from` (a quote or backtick); an unclosed one ends at the line (or the text). */
function stringEnd(code: string, from: number): number {
  const quote = code[from]!;
  for (let index = from + 1; index < code.length; index++) {
    const char = code[index];
    if (char === "\\") index++;
    else if (char === quote) return index + 1;
    else if (char === "\n" && quote !== "`") return index;
  }
  return code.length;
}
