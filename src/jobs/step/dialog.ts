/**
 * @module
 * The dialog channel of the `MD_DIALOG` and `DIRECT` chat styles: the user-facing text of a reply is split
 * into messages — a file path such as `gen/chart.svg` closes a message as its media — each kept in history
 * and, after the step's commit, sent to the agent's `onMessage(body, media?, context)` (`dialog-delivery.ts`).
 */
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

/**
 * Records a reply's dialog text as `dialog` messages in the step's history and queues them for the user: they
 * are sent to `onMessage` only once the step's commit is durable (`dialog-delivery.ts`), so the user never gets
 * a message the job's history does not hold.
 */
export function recordDialog(text: string, changes: StepChanges): void {
  for (const message of splitDialog(text)) {
    changes.append("dialog", { ...message });
    changes.messages.push(message);
  }
}
