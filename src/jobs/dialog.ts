/**
 * @module
 * The dialog channel of the `MD_DIALOG` and `DIRECT` chat styles: the user-facing text of a reply is split
 * into messages — a file path such as `gen/chart.svg` closes a message as its media — and each is sent to the
 * agent's `onMessage(body, media?, context)` and kept in history. A failing `onMessage` is shown to the model
 * on the console, and the turn does not end.
 */
import { formatError } from "../tools/call-tool.ts";
import type { Agent } from "./agent.ts";
import type { StepChanges } from "./step-changes.ts";

/** One message to the user. */
export interface DialogMessage {
  body: string;
  /** A file the message refers to. */
  media?: string;
}

/** A token naming a file: a relative path with a directory and a short extension, not a URL. */
const MEDIA = /(?<=^|\s)((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{3,4})(?=[.,;:!?]*(?:\s|$))/g;

/**
 * The messages for a reply's dialog text.
 *
 * @example
 * ```ts
 * splitDialog("Here is your chart: gen/chart.svg"); // [{ body: "Here is your chart:", media: "gen/chart.svg" }]
 * ```
 */
export function splitDialog(text: string): DialogMessage[] {
  // Links written for ChatGPT-style sandboxes point at workspace files.
  const dialog = text.replace(/\(sandbox:\/{1,2}/g, "(").trim();
  if (dialog === "") return [];
  // A Markdown link or image: the text goes as one message, links and all.
  if (hasMarkdownLink(dialog)) return [{ body: dialog }];
  const messages: DialogMessage[] = [];
  let position = 0;
  // Punctuation right after a path belongs to the sentence it ended, not to the next message.
  const body = (end: number | undefined) => dialog.slice(position, end).replace(/^[.,;:!?]+/, "").trim();
  for (const match of dialog.matchAll(MEDIA)) {
    messages.push({ body: body(match.index), media: match[1]! });
    position = match.index! + match[0].length;
  }
  const rest = body(undefined);
  if (rest) messages.push({ body: rest });
  return messages;
}

/**
 * Whether `text` holds `[label](target)`: a `[` with no `]` before the `](` that closes it, and a `)` later on.
 * One forward pass; a regular expression for it backtracks quadratically over a run of `[`.
 */
function hasMarkdownLink(text: string): boolean {
  const lastParen = text.lastIndexOf(")");
  let open = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 91 /* [ */) open = true;
    else if (code === 93 /* ] */) {
      if (open && text.charCodeAt(index + 1) === 40 /* ( */ && lastParen > index + 1) return true;
      open = false;
    }
  }
  return false;
}

/** Sends a reply's dialog text to the agent's `onMessage`; returns `false` when delivery failed. */
export async function deliverDialog(agent: Agent, job: { id: string; role: string }, text: string, changes: StepChanges): Promise<boolean> {
  let delivered = true;
  for (const message of splitDialog(text)) {
    let error: string | undefined;
    try {
      await agent.onMessage?.(message.body, message.media, { job });
    } catch (thrown) {
      error = formatError(thrown);
    }
    changes.append("dialog", { ...message, ...(error === undefined ? {} : { error }) });
    if (error !== undefined) {
      changes.append("console", { stream: "error", text: `${error} (the message did not reach the user)` });
      delivered = false;
      break;
    }
  }
  return delivered;
}
