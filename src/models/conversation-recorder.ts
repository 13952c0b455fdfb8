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
  /** The characters of each message's text parts. */
  lengths: readonly number[];
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
    const copies: ModelMessage[] = [];
    const settled: boolean[] = [];
    const lengths: number[] = [];
    let textLength = 0;
    messages.forEach((message, index) => {
      let copy: ModelMessage;
      let length: number;
      if (last && last.sources[index] === message && last.settled[index]) {
        copy = last.copies[index]!;
        length = last.lengths[index]!;
      } else {
        copy = clonePromptValue(message);
        length = 0;
        for (const part of copy.content) if (part.type === "text" && typeof part.text === "string") length += part.text.length;
      }
      copies.push(copy);
      settled.push(Object.isFrozen(copy));
      lengths.push(length);
      textLength += length;
    });
    if (first !== undefined) this.#conversations.set(first, { sources: [...messages], copies: [...copies], settled, lengths });
    return { copies, textLength };
  }
}
