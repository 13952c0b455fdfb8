import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { usageFromRawChunk } from "./raw-chunk-usage.ts";

describe("usage read from raw stream chunks", () => {
  it("reads Anthropic's input at message_start and its running output at message_delta", () => {
    const start = usageFromRawChunk({ type: "message_start", message: { usage: { input_tokens: 30, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 1 } } }, undefined);
    assert.deepEqual(start, { inputTokens: 1230, cachedInputTokens: 1000, outputTokens: 1 });
    assert.deepEqual(usageFromRawChunk({ type: "message_delta", usage: { output_tokens: 57 } }, start), { inputTokens: 1230, cachedInputTokens: 1000, outputTokens: 57 });
  });

  it("reads Gemini's usageMetadata (thoughts count as output), OpenAI chat's last chunk and a Responses completion", () => {
    assert.deepEqual(usageFromRawChunk({ usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, thoughtsTokenCount: 7, cachedContentTokenCount: 4 } }, undefined),
      { inputTokens: 20, cachedInputTokens: 4, outputTokens: 12 });
    assert.deepEqual(usageFromRawChunk({ choices: [], usage: { prompt_tokens: 90, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 64 } } }, undefined),
      { inputTokens: 90, cachedInputTokens: 64, outputTokens: 9 });
    assert.deepEqual(usageFromRawChunk({ type: "response.completed", response: { usage: { input_tokens: 50, output_tokens: 5, input_tokens_details: { cached_tokens: 0 } } } }, undefined),
      { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5 });
  });

  it("reads nothing from chunks that report no usage, or report it in a shape it does not know", () => {
    for (const chunk of [null, "text", [1], { choices: [{ delta: { content: "hi" } }] }, { type: "response.created", response: { usage: null } }, { usage: { prompt_tokens: "many" } }]) {
      assert.equal(usageFromRawChunk(chunk, undefined), undefined, JSON.stringify(chunk));
    }
  });
});
