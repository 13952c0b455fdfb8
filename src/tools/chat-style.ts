/**
 * @module
 * The chat styles by name, at the bottom of the layers so that a tool's `target` can be checked and matched
 * without `tools/` importing from `agents/`. This is the one list; `agents/chat-styles/` implements each style.
 */

/** Every chat style, `MARKDOWN` (the default) included. */
export const CHAT_STYLES = ["CONSOLE", "MARKDOWN", "MD_DIALOG", "DIRECT"] as const;

/** A chat style. */
export type ChatStyle = (typeof CHAT_STYLES)[number];

/** The chat style of a job whose metadata names none. */
export const DEFAULT_CHAT_STYLE: ChatStyle = "MARKDOWN";

/** True for a valid chat style name. */
export function isChatStyle(value: unknown): value is ChatStyle {
  return typeof value === "string" && (CHAT_STYLES as readonly string[]).includes(value);
}

/**
 * Whether a tool meant for `target` (one style, a list, or `undefined` for every style) is offered in a job of
 * style `style`. With no style given (a question about the tool alone), every tool matches.
 */
export function matchesChatStyle(target: ChatStyle | readonly ChatStyle[] | undefined, style: ChatStyle | undefined): boolean {
  if (target === undefined || style === undefined) return true;
  return typeof target === "string" ? target === style : target.includes(style);
}
