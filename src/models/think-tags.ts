/**
 * @module
 * Inline reasoning in reply text: Ollama, vLLM, llama.cpp and other OpenAI-compatible servers pass a
 * reasoning model's thinking through as `<think>…</think>` inside the text. It is reasoning, not reply: code
 * inside it must never run and it must not reach the user. The splitter reads the text as it streams (a tag
 * may be split across deltas) in one pass, so hostile text cannot make it slow.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** A run of streamed text, as reply text or as reasoning. */
export interface TextSegment {
  kind: "text" | "reasoning";
  text: string;
}

/**
 * Splits streamed reply text into reply text and `<think>` reasoning. An unclosed `<think>` makes the rest of
 * the reply reasoning (the model was cut off while thinking).
 *
 * @example
 * ```ts
 * const splitter = new ThinkTagSplitter();
 * [...splitter.push("<think>plan</th"), ...splitter.push("ink>Answer"), ...splitter.end()];
 * // [{ kind: "reasoning", text: "plan" }, { kind: "text", text: "Answer" }]
 * ```
 */
export class ThinkTagSplitter {
  #inside = false;
  /** The end of the last delta when it might be the start of a tag (at most a tag's length minus one). */
  #held = "";
  #sawTag = false;

  /** Whether any `<think>` tag was seen. */
  get sawTag(): boolean {
    return this.#sawTag;
  }

  /** The segments of one more delta. */
  push(delta: string): TextSegment[] {
    const segments: TextSegment[] = [];
    const text = this.#held + delta;
    this.#held = "";
    // Positions, not slices of the rest: each character is looked at a bounded number of times.
    let position = 0;
    for (;;) {
      const tag = this.#inside ? CLOSE : OPEN;
      const at = text.indexOf(tag, position);
      if (at < 0) break;
      this.#emit(segments, text.slice(position, at));
      position = at + tag.length;
      this.#inside = !this.#inside;
      this.#sawTag = true;
    }
    const keep = partialTagLength(text, position, this.#inside ? CLOSE : OPEN);
    this.#emit(segments, text.slice(position, text.length - keep));
    this.#held = text.slice(text.length - keep);
    return segments;
  }

  /** The segments still held back when the stream ends. */
  end(): TextSegment[] {
    const segments: TextSegment[] = [];
    this.#emit(segments, this.#held);
    this.#held = "";
    return segments;
  }

  #emit(segments: TextSegment[], text: string): void {
    if (text !== "") segments.push({ kind: this.#inside ? "reasoning" : "text", text });
  }
}

/**
 * The length of the longest end of `text` (after `from`) that is a proper beginning of `tag`: a tag split
 * across deltas.
 */
function partialTagLength(text: string, from: number, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length - from); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/**
 * Text that opens inside reasoning: some chat templates put the opening `<think>` into the prompt, so the reply
 * starts with the thinking and only a `</think>` shows where it ends. Returns the reasoning and the reply, or
 * `undefined` when `text` has no such closing tag.
 *
 * @example
 * ```ts
 * splitOpenReasoning("plan it</think>Done."); // { reasoning: "plan it", text: "Done." }
 * ```
 */
export function splitOpenReasoning(text: string): { reasoning: string; text: string } | undefined {
  const at = text.indexOf(CLOSE);
  if (at < 0) return undefined;
  return { reasoning: text.slice(0, at), text: text.slice(at + CLOSE.length) };
}
