/**
 * @module
 * Where a module's syntax error is: Node reports a TypeScript file's as `file:line` and a caret under the
 * line, and a JavaScript module's with no place at all; the operator needs `file:line:column`.
 */
import { readFileSync } from "node:fs";
import { parse } from "acorn";

/** A syntax error's place in a file, and the line it is on. */
export interface SyntaxErrorLocation {
  line: number;
  /** 1-based. */
  column: number;
  /** The source line. */
  text: string;
}

/**
 * The place of `error` (thrown by importing the module at `path`), or `undefined` when it is not a syntax error
 * or its place cannot be found.
 */
export function syntaxErrorLocation(error: unknown, path: string): SyntaxErrorLocation | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  return fromTypeScriptStack(error.stack ?? "", path) ?? fromJavaScriptSource(path);
}

/** `path:LINE`, the source lines, then a caret line under the failing one: how type stripping reports. */
function fromTypeScriptStack(stack: string, path: string): SyntaxErrorLocation | undefined {
  const lines = stack.split("\n");
  const header = /^(.*):(\d+)$/.exec(lines[0] ?? "");
  if (!header || header[1] !== path) return undefined;
  const caret = lines.findIndex((line, index) => index > 1 && /^\s*\^+\s*$/.test(line));
  if (caret < 2) return undefined;
  return { line: Number(header[2]), column: lines[caret]!.indexOf("^") + 1, text: lines[caret - 1]! };
}

/** A JavaScript module parsed again to find what the engine did not say. */
function fromJavaScriptSource(path: string): SyntaxErrorLocation | undefined {
  if (!/\.(m?js|cjs)$/.test(path)) return undefined;
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    if (loc) return { line: loc.line, column: loc.column + 1, text: source.split(/\r?\n/)[loc.line - 1] ?? "" };
  }
  return undefined;
}
