/**
 * @module
 * The chat styles (DESIGN.md §8.2): how a model's reply becomes code and how output is shown back.
 */

/** Every chat style. `MARKDOWN` is the default. */
export const CHAT_STYLES = ["CONSOLE", "MARKDOWN", "MD_DIALOG", "DIRECT"] as const;

/** A chat style. */
export type ChatStyle = (typeof CHAT_STYLES)[number];
