/**
 * @module
 * The names of the chat styles (DESIGN.md §8.2), at the bottom of the layers so that a tool's `target` can be
 * checked and matched without `tools/` importing from `jobs/`. `jobs/chat-styles/` implements the styles;
 * its `CHAT_STYLES` must list the same names (a test holds the two together).
 */

/** Every chat style name, `MARKDOWN` (the default) included. */
export const CHAT_STYLE_NAMES = ["CONSOLE", "MARKDOWN", "MD_DIALOG", "DIRECT"] as const;

/** A chat style name. */
export type ChatStyleName = (typeof CHAT_STYLE_NAMES)[number];

/** The chat style of a job whose metadata names none. */
export const DEFAULT_CHAT_STYLE: ChatStyleName = "MARKDOWN";

/** True for a valid chat style name. */
export function isChatStyleName(value: unknown): value is ChatStyleName {
  return typeof value === "string" && (CHAT_STYLE_NAMES as readonly string[]).includes(value);
}

/**
 * Whether a tool meant for `target` (one style, a list, or `undefined` for every style) is offered in a job of
 * style `style`. With no style given (a question about the tool alone), every tool matches.
 */
export function matchesChatStyle(target: ChatStyleName | readonly ChatStyleName[] | undefined, style: ChatStyleName | undefined): boolean {
  if (target === undefined || style === undefined) return true;
  return typeof target === "string" ? target === style : target.includes(style);
}
