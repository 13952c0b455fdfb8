/**
 * @module
 * The formal tools of one model request: the tools `LLM_TOOLS_SCOPE` selects from an agent's registry for
 * the job's chat style, as payloads in the profile the model's provider gets. One call for the request
 * builder; throws `InvalidToolsScopeError` (a bad setting) or a `TypeError` (a bad `TOOLS_SCHEMA`).
 */
import { DEFAULT_CHAT_STYLE, isChatStyleName } from "../tools/chat-style.ts";
import { selectScopedTools } from "../tools/llm-tools-scope.ts";
import type { Tool } from "../tools/tool.ts";
import { payloadProfileFor, toolPayload, type ToolPayload } from "./tool-payload.ts";

/** What {@link requestTools} reads. */
export interface RequestToolsOptions {
  /** The agent's registry (its tools and the system tools), hidden ones included — they are dropped. */
  tools: readonly Tool[];
  /** The job's metadata: `LLM_TOOLS_SCOPE`, `CHAT_STYLE`, `TOOLS_SCHEMA`. */
  metadata: Readonly<Record<string, unknown>>;
  /** The model's provider id (`openai.responses`, `anthropic.messages`, …). */
  provider: string;
}

/** The provider payloads for one request; empty when `LLM_TOOLS_SCOPE` is not set. */
export function requestTools({ tools, metadata, provider }: RequestToolsOptions): ToolPayload[] {
  const style = isChatStyleName(metadata.CHAT_STYLE) ? metadata.CHAT_STYLE : DEFAULT_CHAT_STYLE;
  const scope = typeof metadata.LLM_TOOLS_SCOPE === "string" ? metadata.LLM_TOOLS_SCOPE : undefined;
  const selected = selectScopedTools(tools, scope, style);
  if (selected.length === 0) return [];
  const profile = payloadProfileFor(provider, metadata);
  return selected.map((tool) => toolPayload(tool, profile));
}
