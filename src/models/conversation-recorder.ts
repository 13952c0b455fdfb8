/**
 * @module
 * How `scriptedModel` records the conversations it is sent. A job's requests repeat its conversation so far and
 * add a few messages; STATEK freezes the messages a job keeps between requests, so a message seen again is the
 * same object and cannot have changed. The recorder remembers, per conversation (by its first message), the
 * messages of the last request and their copies, and copies only what is new, so recording request after request
 * does not cost the whole history each time.
 */
import { clonePromptValue } from "./clone-prompt-value.ts";
import type { ModelMessage } from "./model-request.ts";

/** The last request of one conversation, as recorded. */
interface Recorded {
  /** The messages as received (compared by identity). */
  sources: readonly object[];
  copies: readonly ModelMessage[];
  /** Whether each copy is frozen: its source was frozen throughout when copied, so it can never change. */
  settled: readonly boolean[];
  /** `through[i]`: the characters of the text parts of messages 0 to `i`. */
  through: readonly number[];
}

/** What recording one request's messages gives. */
export interface RecordedMessages {
  /** Deep copies of the messages (frozen for a message frozen throughout, and then shared between requests). */
  copies: ModelMessage[];
  /** The characters of the messages' text parts. */
  textLength: number;
}

/** Records the non-system messages of requests, copying each settled message once. */
export class ConversationRecorder {
  readonly #conversations = new WeakMap<object, Recorded>();

  /** Copies `messages` (see {@link clonePromptValue}) and counts their text, reusing the last request's work. */
  record(messages: readonly ModelMessage[]): RecordedMessages {
    const first = messages[0];
    const last = first === undefined ? undefined : this.#conversations.get(first);
    // The settled messages the last request began with are taken over in bulk: a long job's request repeats
    // thousands of them, and handling each one by one cost more than the rest of the step.
    let kept = 0;
    if (last) {
      const most = Math.min(last.sources.length, messages.length);
      while (kept < most && last.sources[kept] === messages[kept] && last.settled[kept]) kept++;
    }
    const copies = last ? last.copies.slice(0, kept) : [];
    const settled = last ? last.settled.slice(0, kept) : [];
    const through = last ? last.through.slice(0, kept) : [];
    let textLength = kept > 0 ? through[kept - 1]! : 0;
    for (let index = kept; index < messages.length; index++) {
      const copy = clonePromptValue(messages[index]!);
      for (const part of copy.content) if (part.type === "text" && typeof part.text === "string") textLength += part.text.length;
      copies.push(copy);
      settled.push(Object.isFrozen(copy));
      through.push(textLength);
    }
    if (first !== undefined) this.#conversations.set(first, { sources: messages.slice(), copies: copies.slice(), settled, through });
    return { copies, textLength };
  }
}
