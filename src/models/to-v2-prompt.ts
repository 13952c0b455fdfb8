/**
 * @module
 * Converts a v3 prompt to the v2 shape, for models that implement specification v2. Messages and most parts are
 * identical; v2 has no tool approvals, no `execution-denied` tool output, and only text and base64 media inside
 * `content` tool outputs.
 */
import type {
  LanguageModelV2Prompt,
  LanguageModelV2ToolResultOutput,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";

type V2ContentOutputPart = Extract<LanguageModelV2ToolResultOutput, { type: "content" }>["value"][number];

/**
 * The v2 form of a v3 prompt (see `toV3Prompt` for v4 prompts).
 *
 * @example
 * ```ts
 * const v2Prompt = toV2Prompt(toV3Prompt(v4Prompt));
 * ```
 */
export function toV2Prompt(prompt: LanguageModelV3Prompt): LanguageModelV2Prompt {
  const converted: LanguageModelV2Prompt = [];
  for (const message of prompt) {
    if (message.role === "system" || message.role === "user") {
      // Identical in v2 apart from the provider-options type's name.
      converted.push(message as LanguageModelV2Prompt[number]);
      continue;
    }
    const parts: ReadonlyArray<{ type: string }> = message.content;
    const content = parts.flatMap((part): unknown[] => {
      if (part.type === "tool-approval-response") return []; // v2 has no approvals
      if (part.type !== "tool-result") return [part];
      const result = part as LanguageModelV3ToolResultPart;
      return [{ ...result, output: toV2Output(result.output) }];
    });
    // A tool message that held only approval responses would be empty, which providers reject.
    if (content.length > 0) converted.push({ ...message, content } as LanguageModelV2Prompt[number]);
  }
  return converted;
}

function toV2Output(output: LanguageModelV3ToolResultOutput): LanguageModelV2ToolResultOutput {
  switch (output.type) {
    case "execution-denied":
      return { type: "error-text", value: output.reason ?? "The tool execution was denied." };
    case "content":
      return { type: "content", value: output.value.flatMap(toV2ContentPart) };
    default:
      return output;
  }
}

function toV2ContentPart(part: Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"][number]): V2ContentOutputPart[] {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text }];
    case "file-data":
    case "image-data":
      return [{ type: "media", data: part.data, mediaType: part.mediaType }];
    // v2 can only carry inline media; a link or provider file id is passed on as text so the model still sees it.
    case "file-url":
    case "image-url":
      return [{ type: "text", text: part.url }];
    case "file-id":
    case "image-file-id":
      return [{ type: "text", text: typeof part.fileId === "string" ? part.fileId : JSON.stringify(part.fileId) }];
    default:
      return []; // provider-specific custom parts mean nothing to a v2 provider
  }
}
