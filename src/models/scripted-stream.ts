/**
 * @module
 * The stream a scripted turn becomes in `doStream`: the parts a real provider would send, in the same order
 * (start, reasoning block, text block, each tool call's input then the call, finish), each block sent as one delta.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

/**
 * The v4 stream parts of one scripted reply.
 *
 * @example
 * ```ts
 * const parts = toStreamParts({ content: [{ type: "text", text: "Hi" }], finishReason, usage, responseId: "r1", modelId: "m" });
 * parts.map((part) => part.type); // ["stream-start", "response-metadata", "text-start", "text-delta", "text-end", "finish"]
 * ```
 */
export function toStreamParts(reply: {
  content: readonly LanguageModelV4Content[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
  responseId: string;
  modelId: string;
}): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: reply.responseId, modelId: reply.modelId },
  ];
  reply.content.forEach((part, index) => {
    switch (part.type) {
      case "reasoning": {
        const id = `reasoning-${index}`;
        parts.push({ type: "reasoning-start", id }, { type: "reasoning-delta", id, delta: part.text }, { type: "reasoning-end", id });
        break;
      }
      case "text": {
        const id = `text-${index}`;
        parts.push({ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id });
        break;
      }
      case "tool-call": {
        const id = part.toolCallId;
        parts.push(
          { type: "tool-input-start", id, toolName: part.toolName },
          { type: "tool-input-delta", id, delta: part.input },
          { type: "tool-input-end", id },
          part,
        );
        break;
      }
      // The scripted model produces no other content.
    }
  });
  parts.push({ type: "finish", usage: reply.usage, finishReason: reply.finishReason });
  return parts;
}
