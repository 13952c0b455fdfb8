/**
 * @module
 * Converts a v4 prompt to the v3 shape, for models that implement specification v3. Text, reasoning, tool-call
 * and tool-result parts are identical; file data and files inside tool results changed shape in v4, and two
 * assistant part types (`custom`, `reasoning-file`) are new in v4 and have no v3 equivalent.
 */
import type {
  LanguageModelV3DataContent,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV4FilePart,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
} from "@ai-sdk/provider";

/**
 * The v3 form of a v4 prompt.
 *
 * @example
 * ```ts
 * const v3Prompt = toV3Prompt([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
 * ```
 */
export function toV3Prompt(prompt: LanguageModelV4Prompt): LanguageModelV3Prompt {
  return prompt.map((message) => {
    if (message.role === "system") return message;
    const parts: ReadonlyArray<{ type: string }> = message.content;
    const content = parts.flatMap((part): unknown[] => {
      switch (part.type) {
        case "file": {
          const file = part as LanguageModelV4FilePart;
          return [{ ...file, data: toV3Data(file.data) }];
        }
        case "tool-result": {
          const result = part as LanguageModelV4ToolResultPart;
          return [{ ...result, output: toV3Output(result.output) }];
        }
        // New in v4: a v3 provider would not know them, and they carry nothing a v3 model could use.
        case "custom":
        case "reasoning-file":
          return [];
        default:
          return [part];
      }
    });
    return { ...message, content };
  }) as LanguageModelV3Prompt;
}

function toV3Data(data: SharedV4FileData): LanguageModelV3DataContent {
  switch (data.type) {
    case "data":
      return data.data;
    case "url":
      return data.url;
    case "text":
      // v3 reads string data as base64.
      return Buffer.from(data.text, "utf8").toString("base64");
    case "reference":
      // v3 has no provider references; pass it on as the AI SDK's own adapter does, so the provider reports it.
      return data as unknown as LanguageModelV3DataContent;
  }
}

function toV3Output(output: LanguageModelV4ToolResultOutput): LanguageModelV3ToolResultOutput {
  if (output.type !== "content") return output;
  return {
    ...output,
    value: output.value.map((part) => {
      if (part.type !== "file") return part;
      const { data, mediaType, filename, providerOptions } = part;
      switch (data.type) {
        case "data":
          return {
            type: "file-data" as const,
            data: typeof data.data === "string" ? data.data : Buffer.from(data.data).toString("base64"),
            mediaType,
            filename,
            providerOptions,
          };
        case "url":
          return { type: "file-url" as const, url: data.url.toString(), providerOptions };
        case "reference":
          return { type: "file-id" as const, fileId: data.reference, providerOptions };
        case "text":
          return { type: "text" as const, text: data.text, providerOptions };
      }
    }),
  };
}
