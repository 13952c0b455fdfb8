/**
 * @module
 * Recognising a tool by its marker, in a file of its own so that value printers (`llm-repr.ts`) can tell a
 * tool apart without loading `tool.ts`, which loads them in turn.
 */
import type { Tool } from "./tool.ts";

/** True for a value made by `tool()`. */
export function isTool(value: unknown): value is Tool {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "statek.tool";
}
