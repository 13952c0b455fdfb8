/**
 * @module
 * Counting the model's actions in a job, for `FinalCheck`: each reply counts 1 for code it ran, 1 per formal
 * tool call, and 1 for an answer to the user (dialog styles). Warmup, user messages and notes do not count.
 */
import type { ChatStyleRules } from "../../agents/chat-styles/chat-style.ts";
import type { HistoryRecord } from "../history/history.ts";

/** The model's actions in `history`. */
export function countActions(history: readonly HistoryRecord[], style: ChatStyleRules): number {
  let actions = 0;
  for (const record of history) {
    if (record.kind !== "model-response") continue;
    const response = record.data;
    if (response.code !== null && response.code.split("\n").some((line) => line.trim() && !line.trim().startsWith("//"))) actions++;
    actions += response.toolCalls.length;
    if (style.dialog && style.parseReply(response.text).dialog !== "") actions++;
  }
  return actions;
}
