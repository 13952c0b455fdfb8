/**
 * @module
 * Streamed `streamGenerateContent?alt=sse` answers in the Gemini API's wire format: `GenerateContentResponse`
 * chunks, the finish reason and usage metadata on the last one.
 */
import type { ScriptedResponse, StreamItem } from "./loopback-server.ts";

/** What one streamed reply holds. */
export interface GeminiReply {
  /** Text parts, one chunk each; none for an empty reply. */
  texts?: string[];
  functionCalls?: Array<{ name: string; args: Record<string, unknown> }>;
  /** Parts as the API sends them (thought signatures and all), one chunk each, after the texts. */
  parts?: Array<Record<string, unknown>>;
  /** @default "STOP" */
  finishReason?: string;
  usage?: { prompt: number; candidates: number };
}

const chunk = (candidate: Record<string, unknown>, extra: Record<string, unknown> = {}): StreamItem => ({
  data: { candidates: [{ index: 0, ...candidate }], modelVersion: "gemini-2.5-flash", responseId: "resp-test", ...extra },
});

/** The event stream of one streamed reply. */
export function geminiStream(reply: GeminiReply): ScriptedResponse {
  const events: StreamItem[] = [];
  for (const text of reply.texts ?? []) events.push(chunk({ content: { role: "model", parts: [{ text }] } }));
  for (const call of reply.functionCalls ?? []) events.push(chunk({ content: { role: "model", parts: [{ functionCall: call }] } }));
  for (const part of reply.parts ?? []) events.push(chunk({ content: { role: "model", parts: [part] } }));
  const usage = reply.usage ?? { prompt: 20, candidates: 5 };
  events.push(chunk(
    { content: { role: "model", parts: [{ text: "" }] }, finishReason: reply.finishReason ?? "STOP" },
    { usageMetadata: { promptTokenCount: usage.prompt, candidatesTokenCount: usage.candidates, totalTokenCount: usage.prompt + usage.candidates } },
  ));
  return { events };
}

/**
 * The checks the Gemini API makes on a request's contents that matter here: every turn has parts, and no
 * part is an empty text. A request that fails them is answered like the API does, with a 400.
 */
export function geminiRejection(body: { contents?: Array<{ role: string; parts: Array<Record<string, unknown>> }> }): ScriptedResponse | undefined {
  for (const [index, content] of (body.contents ?? []).entries()) {
    const empty = content.parts.length === 0 || content.parts.some((part) => Object.keys(part).length === 1 && part.text === "");
    if (empty) {
      return {
        status: 400,
        body: { error: { code: 400, message: `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`, status: "INVALID_ARGUMENT" } },
      };
    }
  }
  return undefined;
}
