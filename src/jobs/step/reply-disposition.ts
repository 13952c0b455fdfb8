/**
 * @module
 * What happens to a committed model reply, decided in one place from the reply and the job's chat style:
 * whether its code and formal tool calls run, whether its text goes to the user, and whether it ends a dialog
 * turn. Three kinds of reply are recorded but *held* — not run — and the model is told plainly why:
 *
 * - cut off by the output token limit (`length`): its last code block may be unfinished, so nothing of it runs
 *   (and in the dialog styles the user does not get the half sentence);
 * - stopped by a refusal or the provider's content filter (`content-filter`): nothing runs; in the dialog
 *   styles a refusal with text is the answer the user gets, and it ends the turn;
 * - empty in a dialog style (no text for the user, no code, no tool calls): it is not an answer, so the turn
 *   does not end silently.
 *
 * The decision reads only the stored record, so the step that commits a reply and the step that executes it
 * agree, and so would a replay.
 */
import { compileCell } from "../../workspace/cell-compiler.ts";
import type { ChatStyleRules, ReplyShape } from "../../agents/chat-styles/chat-style.ts";

/** A reply that is recorded but not run: what the model is told, and what its tool calls read as results. */
export interface HeldReply {
  /** Shown to the model on the console in place of running the reply. */
  notice: string;
  /** The result of each of its formal tool calls (they were not run). */
  callResult: string;
}

/** What happens to one reply. */
export interface ReplyDisposition {
  /** Its code and formal tool calls run (at the start of the next step). */
  run: boolean;
  /** Its dialog text is sent to the user (dialog styles). */
  deliver: boolean;
  /** It ends a dialog turn: nothing is left to run and, once delivered, the job is `DONE`. */
  endsTurn: boolean;
  /** It is a final answer for post-processors (a turn-ending dialog reply; code that calls `exit(…)`). */
  final: boolean;
  /** Set for a reply that is not run. */
  held?: HeldReply;
}

/**
 * Decides what happens to a reply.
 *
 * @example
 * ```ts
 * replyDisposition({ text: "```ts\nconst rows = [", code: "const rows = [", toolCalls: [], finishReason: "length" }, MARKDOWN_STYLE).run; // false
 * ```
 */
export function replyDisposition(reply: ReplyShape, style: ChatStyleRules): ReplyDisposition {
  const dialogText = style.dialog ? style.parseReply(reply.text).dialog : "";
  const hasCalls = reply.toolCalls.length > 0;
  const reason = `finish reason: ${reply.finishReason}`;
  if (reply.finishReason === "length") {
    return held(`Your reply was cut off at the output token limit (${reason}): none of its code${hasCalls ? " or tool calls" : ""} ran` +
      `${style.dialog ? " and the user did not see it" : ""}. Reply again with less: shorter code, or the work split over several steps.`,
    "not run: the reply was cut off at the output token limit");
  }
  if (reply.finishReason === "content-filter") {
    // A refusal in a dialog is an answer: the user reads it and the turn ends.
    if (style.dialog && dialogText !== "" && !hasCalls) return { run: false, deliver: true, endsTurn: true, final: true };
    const what = reply.text.trim() === "" && !hasCalls ? "before it had any content: nothing ran" : `: none of its code${hasCalls ? " or tool calls" : ""} ran`;
    return {
      ...held(`Your reply was refused or stopped by the provider's content filter (${reason})${what.startsWith(":") ? what : ` ${what}`}.`,
        "not run: the reply was stopped by the provider's content filter"),
      deliver: style.dialog && dialogText !== "",
    };
  }
  if (style.dialog && dialogText === "" && !hasCalls && !hasRunnableCode(reply.code)) {
    return held("Your reply was empty: the user got no answer and nothing ran. Answer the user, or run code first.", "not run");
  }
  const final = style.isFinal(reply);
  return { run: true, deliver: style.dialog, endsTurn: style.dialog && final, final };
}

function held(notice: string, callResult: string): ReplyDisposition {
  return { run: false, deliver: false, endsTurn: false, final: false, held: { notice, callResult } };
}

function hasRunnableCode(code: string | null): boolean {
  return code !== null && compileCell(code).kind !== "empty";
}
