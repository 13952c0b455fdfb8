/**
 * @module
 * The formal tools offered to the model in one request (the provider payload): `ts_cli` in the `DIRECT` chat
 * style, plus what `LLM_TOOLS_SCOPE` selects from the agent's registry for the job's chat style
 * (`docs/request-tools.ts`), all in the schema profile of the model's provider.
 */
import { requestTools as selectedToolPayloads } from "../docs/request-tools.ts";
import { payloadProfileFor, toolPayload } from "../docs/tool-payload.ts";
import type { ModelToolPayload } from "../models/model-request.ts";
import type { JsonValue } from "../store/store.ts";
import type { Agent } from "./agent.ts";
import type { ChatStyle } from "./chat-styles/chat-style.ts";
import { tsCliTool } from "./ts-cli.ts";

/** The tools to offer the model for one request; throws `InvalidToolsScopeError` for a bad scope. */
export function requestTools(
  agent: Agent, style: ChatStyle, metadata: Readonly<Record<string, JsonValue>>, provider: string,
): ModelToolPayload[] {
  const payloads: ModelToolPayload[] = [];
  if (style === "DIRECT") payloads.push(toolPayload(tsCliTool, payloadProfileFor(provider, metadata)));
  const selected = selectedToolPayloads({ tools: agent.registry.all, metadata: { ...metadata, CHAT_STYLE: style }, provider });
  for (const payload of selected) if (payload.name !== tsCliTool.name) payloads.push(payload);
  return payloads;
}
