/**
 * @module
 * Parameter names of an undocumented host function or method, read from its source, so `brief()` can show
 * `findMeeting(title, options)` for a method nobody described. Destructured parameters are shown as
 * `options` (an object) or `values` (an array); a rest parameter as `...name`. When the source cannot be
 * read (native code), the function's arity gives `arg1, arg2`.
 */

const OPEN = new Set(["(", "[", "{"]);
const CLOSE = new Set([")", "]", "}"]);

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      current += char;
      if (char === "\\") current += text[++i] ?? "";
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (OPEN.has(char)) depth++;
    else if (CLOSE.has(char)) depth--;
    else if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim()) parts.push(current);
  return parts;
}

function nameOf(parameter: string): string {
  const text = parameter.trim();
  const rest = text.startsWith("...");
  const body = rest ? text.slice(3).trim() : text;
  let name: string;
  if (body.startsWith("{")) name = "options";
  else if (body.startsWith("[")) name = "values";
  else name = /^[A-Za-z_$][\w$]*/.exec(body)?.[0] ?? "arg";
  return rest ? `...${name}` : name;
}

/** The parameter names of `fn`, read from its source. */
export function parameterNames(fn: Function): string[] {
  let source: string;
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    source = "";
  }
  if (/\[native code\]/.test(source) || !source) return Array.from({ length: fn.length }, (_, index) => `arg${index + 1}`);
  // `x => …` has no parentheses.
  const bare = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(source);
  if (bare) return [bare[1]!];
  const open = source.indexOf("(");
  if (open < 0) return [];
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < source.length; i++) {
    const char = source[i]!;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (OPEN.has(char)) depth++;
    else if (CLOSE.has(char) && --depth === 0) {
      return splitTopLevel(source.slice(open + 1, i)).map(nameOf);
    }
  }
  return [];
}
