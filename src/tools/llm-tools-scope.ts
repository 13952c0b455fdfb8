/**
 * @module
 * `LLM_TOOLS_SCOPE`: which tools a job offers the model as formal provider tools. The
 * metadata value is an optional category — `SYSTEM`, `APPLICATION` or `ALL` (any case) — then any number of
 * lists, `+a,b` to add tools by name and `-c` to remove them:
 *
 * ```text
 * ALL                 every visible tool
 * SYSTEM+sendMessage  the system tools and sendMessage
 * ALL-sendMessage     everything but sendMessage
 * +brief              exactly brief
 * ```
 *
 * No setting (or an empty one) offers no formal tools. Hidden tools are never offered, and naming one is an
 * error, as is naming an unknown tool, a tool not meant for the job's chat style, or removing a tool that is
 * not selected. {@link parseLlmToolsScope} and {@link selectScopedTools} are pure: the request builder and
 * the chat styles call them.
 */
import { InvalidToolsScopeError } from "../errors/invalid-tools-scope-error.ts";
import { matchesChatStyle, type ChatStyle } from "./chat-style.ts";
import { isListed, type Tool } from "./tool.ts";
import { TOOL_SCOPES, selectTools, type ToolScope } from "./tool-registry.ts";
import { isIdentifier } from "./is-identifier.ts";

/** A parsed `LLM_TOOLS_SCOPE`. A part that was not written is `undefined` (not an empty list). */
export interface LlmToolsScope {
  /** The text as written. */
  source: string;
  category: ToolScope | undefined;
  /** Names after `+`, in order, duplicates kept. */
  add: string[] | undefined;
  /** Names after `-`, in order, duplicates kept. */
  remove: string[] | undefined;
}


/** Parses an `LLM_TOOLS_SCOPE` value; throws `InvalidToolsScopeError` for bad syntax. */
export function parseLlmToolsScope(text: string | null | undefined): LlmToolsScope {
  const source = text ?? "";
  const trimmed = source.trim();
  const scope: LlmToolsScope = { source, category: undefined, add: undefined, remove: undefined };
  if (!trimmed) return scope;
  const fail = (reason: string) => new InvalidToolsScopeError({ scope: source, reason });
  const firstMarker = trimmed.search(/[+-]/);
  const head = (firstMarker < 0 ? trimmed : trimmed.slice(0, firstMarker)).trim();
  if (head) {
    const category = head.toUpperCase() as ToolScope;
    if (!TOOL_SCOPES.includes(category)) {
      throw fail(`'${head}' is not a category (SYSTEM, APPLICATION or ALL); tool lists start with + or -`);
    }
    scope.category = category;
  }
  if (firstMarker < 0) return scope;
  const rest = trimmed.slice(firstMarker);
  for (const match of rest.matchAll(/([+-])([^+-]*)/g)) {
    const [whole, marker, body] = match;
    const names = body!.split(",").map((name) => name.trim());
    const bad = names.find((name) => !isIdentifier(name));
    if (bad !== undefined) {
      throw fail(bad === "" ? `the list '${whole!.trim()}' has an empty tool name` : `the list '${whole!.trim()}' names '${bad}', which is not a tool name`);
    }
    const list = marker === "+" ? (scope.add ??= []) : (scope.remove ??= []);
    list.push(...names);
  }
  return scope;
}

/**
 * The tools a job offers the model formally under `scope`, from `tools` (an agent's registry: its tools and
 * the system tools), for a job of `chatStyle`: the category's tools, then the additions, less the removals.
 * Throws `InvalidToolsScopeError` for unknown, hidden or style-incompatible names and unselected removals.
 */
export function selectScopedTools(tools: readonly Tool[], scope: LlmToolsScope | string | undefined, chatStyle?: ChatStyle): Tool[] {
  const parsed = typeof scope === "object" ? scope : parseLlmToolsScope(scope);
  if (parsed.category === undefined && parsed.add === undefined && parsed.remove === undefined) return [];
  const visible = tools.filter(isListed);
  const fail = (reason: string) => new InvalidToolsScopeError({ scope: parsed.source, reason });
  const resolve = (name: string) => {
    const found = visible.find((tool) => tool.name === name);
    if (!found) throw fail(`unknown tool '${name}' (not one of the agent's visible tools)`);
    if (!matchesChatStyle(found.target, chatStyle)) {
      const target = typeof found.target === "string" ? found.target : found.target!.join(", ");
      throw fail(`tool '${name}' is not offered in the ${chatStyle} chat style (its target is ${target})`);
    }
    return found;
  };
  const selected: Tool[] = [];
  const base = parsed.category === undefined ? [] : selectTools(visible, parsed.category, chatStyle === undefined ? {} : { chatStyle });
  for (const tool of [...base, ...(parsed.add ?? []).map(resolve)]) {
    if (!selected.some((existing) => existing.name === tool.name)) selected.push(tool);
  }
  const removed = new Set<string>();
  for (const name of parsed.remove ?? []) {
    resolve(name);
    if (!selected.some((tool) => tool.name === name)) throw fail(`'-${name}' removes a tool that is not selected`);
    removed.add(name);
  }
  return selected.filter((tool) => !removed.has(tool.name));
}
