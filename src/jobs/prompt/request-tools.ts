/**
 * @module
 * The formal tools offered to the model in one request (the provider payload): `ts_cli` in the `DIRECT` chat
 * style, plus the tools `LLM_TOOLS_SCOPE` selects from the agent's registry for the job's chat style (hidden
 * ones never), all in the schema profile of the model's provider (`TOOLS_SCHEMA` overrides it).
 */
import { payloadProfileFor, toolPayload, type PayloadProfile } from "../../docs/tool-payload.ts";
import type { ModelToolPayload } from "../../models/model-request.ts";
import type { JsonValue } from "../../store/store.ts";
import type { ChatStyle } from "../../tools/chat-style.ts";
import { selectScopedTools } from "../../tools/llm-tools-scope.ts";
import type { Tool } from "../../tools/tool.ts";
import { tsCliTool } from "../../agents/chat-styles/ts-cli-tool.ts";

/**
 * The tools to offer the model for one request; empty when the style has no tool of its own and
 * `LLM_TOOLS_SCOPE` is not set. Throws `InvalidToolsScopeError` for a bad scope and a `TypeError` for a bad
 * `TOOLS_SCHEMA`.
 */
export function requestTools(
  agent: { readonly registry: { readonly all: readonly Tool[] } },
  style: ChatStyle,
  metadata: Readonly<Record<string, JsonValue>>,
  provider: string,
): ModelToolPayload[] {
  let profile: PayloadProfile | undefined;
  // The profile is worked out only when a tool is offered: a job without formal tools never reads TOOLS_SCHEMA.
  const payload = (tool: Tool) => toolPayload(tool, (profile ??= payloadProfileFor(provider, metadata)));
  const payloads: ModelToolPayload[] = [];
  if (style === "DIRECT") payloads.push(payload(tsCliTool));
  const scope = typeof metadata.LLM_TOOLS_SCOPE === "string" ? metadata.LLM_TOOLS_SCOPE : undefined;
  for (const tool of selectScopedTools(agent.registry.all, scope, style)) if (tool.name !== tsCliTool.name) payloads.push(payload(tool));
  return payloads;
}
